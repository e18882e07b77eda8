// The Content-Security-Policy of each kind of response the server sends. Every policy
// forbids framing (frame-ancestors 'none'), so no page of this server can be overlaid on
// another site to trick a click.

/** API responses are data, never a page to render. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * A self-contained report page (a leaderboard's `.html`, an answers report as HTML): its
 * own inline style and inline SVG, nothing loaded, no script, no form, no framing.
 */
export const REPORT_PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The policy a response goes out with: its own, with framing forbidden if it said nothing
 * about framing, else the API's.
 */
export function policyOf(own: string | null): string {
  if (own === null) return API_POLICY;
  return /(^|;)\s*frame-ancestors\s/i.test(own) ? own : `${own}; frame-ancestors 'none'`;
}
