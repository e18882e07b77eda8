/**
 * Number formatting that matches C's printf, so text output can be diffed against
 * trec_eval byte for byte.
 */

/**
 * Formats `value` like C's `printf("%.<digits>f")` with glibc rounding: the exact binary
 * value is rounded, and an exact tie goes to the even digit (0.03125 → "0.0312").
 */
export function formatFixed(value: number, digits: number): string {
  if (Number.isNaN(value)) return '-nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  // toFixed already rounds the exact binary value to nearest; it differs from glibc only on
  // an exact tie, whose next digit is a 5 followed by zeros. Anything else takes the fast path.
  if (digits >= 1 && digits <= 6 && value >= 0 && value < 1e9 && !Object.is(value, -0)) {
    // value·10^digits is off the exact product by far less than 0.01 here, so when it is
    // not near a half, its nearest integer is the correctly rounded result.
    const scale = POWERS_OF_TEN[digits]!;
    const scaled = value * scale;
    const nearest = Math.round(scaled);
    if (Math.abs(scaled - nearest) < 0.49) {
      const whole = Math.floor(nearest / scale);
      const fraction = String(nearest - whole * scale);
      return `${whole}.${'000000'.slice(0, digits - fraction.length)}${fraction}`;
    }
  }
  if (digits <= 20 && !Object.is(value, -0)) {
    // A tie needs |value|·2·10^digits to be an odd integer; when the (rounded) product is
    // clearly not near one, the exact value is no tie either.
    const twice = Math.abs(value) * 2 * 10 ** digits;
    const nearest = Math.round(twice);
    if (Math.abs(twice - nearest) > 1e-6 * Math.max(1, twice) || nearest % 2 === 0)
      return value.toFixed(digits);
    const next = value.toFixed(digits + 1);
    if (next.charCodeAt(next.length - 1) !== 53 /* 5 */) return value.toFixed(digits);
  }
  const negative = value < 0 || Object.is(value, -0);
  // toFixed with many digits is exact for doubles in the range we print; we round the
  // decimal string ourselves so ties are settled the way glibc settles them.
  const extra = 30;
  const exact = Math.abs(value).toFixed(Math.min(100, digits + extra));
  const point = exact.indexOf('.');
  const intPart = exact.slice(0, point);
  const frac = exact.slice(point + 1);
  const kept = intPart + frac.slice(0, digits);
  const next = frac.charCodeAt(digits) - 48;
  const rest = frac.slice(digits + 1);
  let roundUp = false;
  if (next > 5) roundUp = true;
  else if (next === 5) {
    if (/[1-9]/.test(rest)) roundUp = true;
    else roundUp = (kept.charCodeAt(kept.length - 1) - 48) % 2 === 1;
  }
  let digitsStr = roundUp ? incrementDecimalString(kept) : kept;
  // Restore the decimal point.
  const intLen = digitsStr.length - digits;
  digitsStr = digits > 0 ? `${digitsStr.slice(0, intLen)}.${digitsStr.slice(intLen)}` : digitsStr;
  return negative ? `-${digitsStr}` : digitsStr;
}

const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000];

function incrementDecimalString(s: string): string {
  const chars = s.split('');
  let i = chars.length - 1;
  while (i >= 0) {
    if (chars[i] === '9') {
      chars[i] = '0';
      i--;
    } else {
      chars[i] = String.fromCharCode(chars[i]!.charCodeAt(0) + 1);
      return chars.join('');
    }
  }
  return `1${chars.join('')}`;
}

/** Pads a measure name on the right to 22 characters, as trec_eval's `%-22s`. */
export function padName(name: string): string {
  return name.length >= 22 ? name : name + ' '.repeat(22 - name.length);
}
