// The one LaTeX escaper of assay's reports (compare and answers tables, leaderboards): run
// tags, system names, criteria and measure names come from users' files.

/**
 * Escapes text for LaTeX's text mode: the ten special characters, `<`, `>` and `|` (which
 * the OT1 encoding prints as other glyphs) and line breaks, which become spaces so that a
 * name can neither end a `%` comment nor start a paragraph.
 */
export function latexEscape(s: string): string {
  return s.replace(/[\\{}$&#^_%~<>|\r\n]/g, (ch) => {
    switch (ch) {
      case '\\':
        return '\\textbackslash{}';
      case '~':
        return '\\textasciitilde{}';
      case '^':
        return '\\textasciicircum{}';
      case '<':
        return '\\textless{}';
      case '>':
        return '\\textgreater{}';
      case '|':
        return '\\textbar{}';
      case '\r':
      case '\n':
        return ' ';
      default:
        return `\\${ch}`;
    }
  });
}

/** A LaTeX `%` comment line holding `text` (line breaks in it become spaces). */
export function latexComment(text: string): string {
  return `% ${text.replace(/[\r\n]+/g, ' ')}`;
}
