// The one page shell of assay's HTML reports (compare, answers, judge report, published
// leaderboards): a self-contained file, with nothing fetched and no script, that fits a
// phone's screen (the viewport tag), headed by its escaped title.
import { escapeHtml as e } from '../formats/html.js';

/**
 * What every report page needs whatever its own style: charts shrink to the screen's width,
 * and a wide table scrolls in its box on a phone instead of widening the page.
 */
const BASE_STYLE =
  'svg{max-width:100%;height:auto}' +
  '@media (max-width:700px){table{display:block;overflow-x:auto;max-width:100%}}';

/**
 * A whole HTML page: `title` (escaped here) is the document's title and its one `<h1>`;
 * `style` is the report's own CSS, after the shared base; `body` is the report's content,
 * already escaped HTML.
 */
export function htmlPage(page: { title: string; style: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(page.title)}</title>
<style>${BASE_STYLE}${page.style}</style>
</head>
<body>
<h1>${e(page.title)}</h1>
${page.body}
</body>
</html>
`;
}
