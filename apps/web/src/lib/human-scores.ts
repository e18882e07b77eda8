// Scores people give in the web app, turned into the score file format the import
// endpoint stores (one line per answer scored on every criterion).

/** The key of one answer (topic, system). */
export function answerKey(topic: string, system: string): string {
  return JSON.stringify([topic, system]);
}

/**
 * JSONL of the answers scored on every criterion, trial 1, in key order; answers with a
 * criterion left out are not included.
 */
export function scoreFile(
  scores: Record<string, Record<string, number>>,
  criteria: string[],
): string {
  const lines: string[] = [];
  for (const key of Object.keys(scores).sort()) {
    const given = scores[key]!;
    if (criteria.length === 0 || !criteria.every((c) => c in given)) continue;
    const [topic, system] = JSON.parse(key) as [string, string];
    const ordered = Object.fromEntries(criteria.map((c) => [c, given[c]]));
    lines.push(JSON.stringify({ topic, system, trial: 1, scores: ordered, justification: '' }));
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}
