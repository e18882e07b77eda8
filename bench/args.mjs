// The benches' command-line options: numeric flags taken out of the argument list, so
// what remains are the engines or systems to run.

/** Removes `name VALUE` from `args` and returns VALUE as a number, or `fallback`. */
export function numberFlag(args, name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  args.splice(i, 2);
  return value;
}
