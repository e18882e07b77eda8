// The slope chart of two leaderboards over the same runs, drawn once: the compare HTML
// report embeds it and the web app's leaderboard view shows the same SVG (see svg.ts); every
// text goes through escapeHtml.
import { escapeHtml as e } from '../formats/html.js';
import { n1, svgFrame } from './svg.js';

/** One run of a leaderboard, best first; `value` (e.g. its mean) is shown beside its name. */
export interface SlopeChartRow {
  run: string;
  value?: string;
}

/** The two rankings to join and what to call them. */
export interface SlopeChartInput {
  /** What the chart shows, for screen readers (`aria-label`) and as its tooltip. */
  label: string;
  leftHead: string;
  rightHead: string;
  /** The runs in the left leaderboard's order, best first. */
  left: readonly SlopeChartRow[];
  /** The same runs (some may be missing) in the right leaderboard's order. */
  right: readonly SlopeChartRow[];
}

const ROW = 22;
const TOP = 30;
const WIDTH = 720;
const LEFT_X = 250;
const RIGHT_X = 470;
/** Line colours: same place, moved up (better on the right), moved down. */
const COLOURS = { same: '#9aa3b0', rise: '#3c8d5a', fall: '#b5483b' } as const;

const y = (i: number) => TOP + i * ROW + ROW / 2;

function rowText(row: SlopeChartRow, place: number): string {
  return `${place}. ${e(row.run)}${row.value === undefined ? '' : ` ${e(row.value)}`}`;
}

/**
 * Two rankings of the same runs as one self-contained SVG: each run's place on the left,
 * its place on the right, and a line between them (grey: same place, green: higher on the
 * right, red: lower). A run missing on one side has no line. Hovering a line tells both
 * places.
 */
export function slopeChartSvg(input: SlopeChartInput): string {
  const { left, right } = input;
  const height = TOP + Math.max(left.length, right.length) * ROW + 10;
  const place = new Map(right.map((r, j) => [r.run, j]));
  const heads =
    `<text x="${LEFT_X}" y="16" text-anchor="end" font-weight="600">${e(input.leftHead)}</text>` +
    `<text x="${RIGHT_X}" y="16" font-weight="600">${e(input.rightHead)}</text>`;
  const lines = left
    .map((r, i) => {
      const label = `<text x="${LEFT_X - 8}" y="${n1(y(i) + 4)}" text-anchor="end">${rowText(r, i + 1)}</text>`;
      const j = place.get(r.run);
      if (j === undefined) return `<g>${label}</g>`;
      const colour = j === i ? COLOURS.same : j < i ? COLOURS.rise : COLOURS.fall;
      const values = (row: SlopeChartRow) => (row.value === undefined ? '' : ` (${row.value})`);
      return (
        `<g><title>${e(r.run)}: rank ${i + 1}${e(values(r))} → rank ${j + 1}${e(values(right[j]!))}</title>${label}` +
        `<line x1="${LEFT_X}" x2="${RIGHT_X}" y1="${n1(y(i))}" y2="${n1(y(j))}" stroke="${colour}" stroke-width="1.6"/></g>`
      );
    })
    .join('');
  const labels = right
    .map((r, j) => `<text x="${RIGHT_X + 8}" y="${n1(y(j) + 4)}">${rowText(r, j + 1)}</text>`)
    .join('');
  return svgFrame(WIDTH, height, input.label, `${heads}${lines}${labels}`);
}
