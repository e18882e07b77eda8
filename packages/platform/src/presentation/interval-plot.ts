// The interval plot of one measure: each run's mean and 95% interval on one axis, one row per
// run in leaderboard order. The compare report embeds this SVG and the web app shows the same
// one (see svg.ts); every text goes through escapeHtml (run and measure names come from
// users' files).
import { escapeHtml as e } from '../formats/html.js';
import { f4, intervalDomain, linear, ticks, tickLabel } from './numbers.js';
import { n1, svgFrame } from './svg.js';

/** One run's row: its mean and the bounds of its 95% interval. */
export interface IntervalRow {
  run: string;
  mean: number;
  lo: number;
  hi: number;
}

const WIDTH = 720;
const ROW = 22;
const LEFT = 200;
const RIGHT = 24;
const TOP = 12;
const COLOURS = { grid: '#e4e6ec', interval: '#4a6fa5', mean: '#1f3b63' } as const;

/** The accessible name of a measure's interval plot (the web app's tests find it by it). */
export function intervalPlotLabel(measure: string): string {
  return `${measure}: means with 95% confidence intervals`;
}

/**
 * The means with their 95% intervals as one self-contained SVG: a whisker from lo to hi with
 * a dot at the mean per run, round ticks below (see {@link intervalDomain} for the axis).
 * Hovering a row tells its mean and interval.
 */
export function intervalPlotSvg(measure: string, rows: readonly IntervalRow[]): string {
  const plotH = rows.length * ROW;
  const height = TOP + plotH + 40;
  const [lo, hi] = intervalDomain(rows.map((r) => [r.lo, r.hi] as const));
  const x = linear(lo, hi, LEFT, WIDTH - RIGHT);
  const grid = ticks(lo, hi)
    .map(
      (t) =>
        `<line x1="${n1(x(t))}" x2="${n1(x(t))}" y1="${TOP}" y2="${TOP + plotH}" stroke="${COLOURS.grid}"/>` +
        `<text x="${n1(x(t))}" y="${TOP + plotH + 16}" text-anchor="middle">${tickLabel(t)}</text>`,
    )
    .join('');
  const line = (x1: number, x2: number, y1: number, y2: number) =>
    `<line x1="${n1(x1)}" x2="${n1(x2)}" y1="${n1(y1)}" y2="${n1(y2)}" stroke="${COLOURS.interval}" stroke-width="2"/>`;
  const body = rows
    .map((r, i) => {
      const y = TOP + i * ROW + ROW / 2;
      return (
        `<g><title>${e(r.run)}: mean ${f4(r.mean)}, 95% CI [${f4(r.lo)}, ${f4(r.hi)}]</title>` +
        `<text x="${LEFT - 8}" y="${n1(y + 4)}" text-anchor="end">${e(r.run)}</text>` +
        line(x(r.lo), x(r.hi), y, y) +
        line(x(r.lo), x(r.lo), y - 5, y + 5) +
        line(x(r.hi), x(r.hi), y - 5, y + 5) +
        `<circle cx="${n1(x(r.mean))}" cy="${n1(y)}" r="4.5" fill="${COLOURS.mean}"/></g>`
      );
    })
    .join('');
  const caption = `<text x="${n1((LEFT + WIDTH - RIGHT) / 2)}" y="${height - 6}" text-anchor="middle">mean ${e(measure)} with 95% bootstrap interval</text>`;
  return svgFrame(WIDTH, height, intervalPlotLabel(measure), `${grid}${body}${caption}`);
}
