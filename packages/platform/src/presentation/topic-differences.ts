// The per-topic differences of two runs on one measure: one bar per topic, sorted, green where
// the first run is higher and red where the second is. The compare report embeds this SVG
// for its highlighted pair and the web app draws the same for any pair the reader picks.
import { escapeHtml as e } from '../formats/html.js';
import { f4, linear, ticks, tickLabel } from './numbers.js';
import { n1, svgFrame } from './svg.js';

/** One topic's scores of runs a and b and their difference a − b. */
export interface TopicDifference {
  topic: string;
  a: number;
  b: number;
  diff: number;
}

/** Per-topic differences a − b, largest first (ties by topic id). */
export function topicDifferences(
  topicIds: readonly string[],
  a: readonly number[],
  b: readonly number[],
): TopicDifference[] {
  return topicIds
    .map((topic, i) => ({ topic, a: a[i]!, b: b[i]!, diff: a[i]! - b[i]! }))
    .sort((p, q) => q.diff - p.diff || (p.topic < q.topic ? -1 : p.topic > q.topic ? 1 : 0));
}

/** How many topics run a is higher on (wins), run b is higher on (losses), and ties. */
export function winsLosses(diffs: readonly TopicDifference[]): {
  wins: number;
  losses: number;
  ties: number;
} {
  const wins = diffs.filter((d) => d.diff > 0).length;
  const losses = diffs.filter((d) => d.diff < 0).length;
  return { wins, losses, ties: diffs.length - wins - losses };
}

/** The accessible name of a pair's per-topic plot (the web app's tests find it by it). */
export function topicDifferencesLabel(measure: string, a: string, b: string): string {
  return `Per-topic ${measure} differences: ${a} − ${b}`;
}

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 50;
const RIGHT = 10;
const TOP = 10;
const PLOT_H = HEIGHT - TOP - 34;
const COLOURS = { grid: '#e4e6ec', zero: '#555', up: '#3c8d5a', down: '#b5483b' } as const;

/**
 * The differences (as {@link topicDifferences} sorts them) as one self-contained SVG: bars
 * from zero on a y axis symmetric around it, round ticks, and a caption counting the topics
 * each run is higher on. Hovering a bar tells the topic, both scores and the difference.
 */
export function topicDifferencesSvg(
  measure: string,
  a: string,
  b: string,
  diffs: readonly TopicDifference[],
): string {
  const max = Math.max(1e-9, ...diffs.map((d) => Math.abs(d.diff)));
  const y = linear(-max, max, TOP + PLOT_H, TOP);
  const barW = (WIDTH - LEFT - RIGHT) / Math.max(1, diffs.length);
  // A gap of one unit between bars while they are wide enough to show it.
  const width = Math.max(0.5, barW - (barW > 3 ? 1 : 0)).toFixed(2);
  const bars = diffs
    .map((d, i) => {
      const y0 = Math.min(y(0), y(d.diff));
      const h = Math.max(Math.abs(y(d.diff) - y(0)), d.diff === 0 ? 0 : 0.5);
      const fill = d.diff >= 0 ? COLOURS.up : COLOURS.down;
      return `<rect x="${n1(LEFT + i * barW)}" y="${n1(y0)}" width="${width}" height="${n1(h)}" fill="${fill}"><title>topic ${e(d.topic)}: ${e(a)} ${f4(d.a)}, ${e(b)} ${f4(d.b)}, difference ${f4(d.diff)}</title></rect>`;
    })
    .join('');
  const axis = ticks(-max, max)
    .map(
      (v) =>
        `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${n1(y(v))}" y2="${n1(y(v))}" stroke="${v === 0 ? COLOURS.zero : COLOURS.grid}"/>` +
        `<text x="${LEFT - 6}" y="${n1(y(v) + 4)}" text-anchor="end">${tickLabel(v)}</text>`,
    )
    .join('');
  const { wins, losses, ties } = winsLosses(diffs);
  const caption = `<text x="${n1((LEFT + WIDTH - RIGHT) / 2)}" y="${HEIGHT - 8}" text-anchor="middle">${diffs.length} topics sorted by difference: ${e(a)} higher on ${wins}, ${e(b)} higher on ${losses}, equal on ${ties}</text>`;
  return svgFrame(WIDTH, HEIGHT, topicDifferencesLabel(measure, a, b), `${axis}${bars}${caption}`);
}
