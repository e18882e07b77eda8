// The one HTML escaper of the pages assay writes as strings (compare and answers reports,
// published leaderboards, the SVG charts they share with the web app).

/** Escapes text for HTML (and SVG) element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}
