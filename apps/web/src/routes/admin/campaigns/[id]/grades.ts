import type { Campaign } from '$lib/api';

/** A grade and its label, as the campaign's scale names it ("2 – relevant"). */
export function gradeName(c: Campaign, g: number): string {
  const label = c.grades.find((x) => x.grade === g)?.label;
  return label && label !== String(g) ? `${g} – ${label}` : String(g);
}

/** How an item's label stands, in words. */
export function standing(d: { label: number | null; status: string }): string {
  const grade = d.label ?? '–';
  if (d.status === 'adjudicated') return `${grade} (adjudicated)`;
  if (d.status === 'tie') return `${grade} (tie: the lower grade until you decide)`;
  if (d.status === 'agreed') return `${grade} (the annotators agree)`;
  if (d.status === 'unlabelled') return 'none yet';
  return `${grade} (majority)`;
}
