// The frame every chart of a leaderboard shares: an SVG to put inline in an HTML page (which
// gives it its namespace, so it names no URL), with inline colours and fonts instead of a
// style sheet, that scales down to a narrow screen, named for screen readers by its
// aria-label.
import { escapeHtml as e } from '../formats/html.js';

/** SVG coordinates to one decimal: enough for a screen, and the same text in every output. */
export const n1 = (x: number): string => x.toFixed(1);

/**
 * An SVG of `width` × `height` whose content inherits one font and text colour; `label`
 * (escaped here) is its accessible name. `body` must already be escaped SVG.
 */
export function svgFrame(width: number, height: number, label: string, body: string): string {
  return (
    `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
    `style="max-width:100%;height:auto" role="img" aria-label="${e(label)}">` +
    `<g font-family="system-ui,sans-serif" font-size="12" fill="#1d232b">${body}</g></svg>`
  );
}
