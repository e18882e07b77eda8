import { cohenKappa, confusionMatrix, exactAgreement } from './agreement.js';

/** Two raters' labels of one item (a nugget in an answer, a citation, a criterion). */
export interface LabelPair {
  topic: string;
  a: string;
  b: string;
}

/** Agreement of two raters over some items, on a named label scale. */
export interface NamedLabelAgreement {
  /** Items both labelled. */
  n: number;
  /** Share of items with the same label (NaN without items). */
  exact: number;
  /** Cohen's kappa, unweighted (NaN without items, or when both used one label throughout). */
  kappa: number;
  /** Rows follow rater a, columns rater b, both in the order of `labels`. */
  confusion: { labels: string[]; matrix: number[][] };
}

/** Agreement over every item and per topic (topics in first-seen order). */
export interface LabelAgreementReport {
  overall: NamedLabelAgreement;
  perTopic: Array<{ topic: string } & NamedLabelAgreement>;
}

function agreementOf(pairs: readonly LabelPair[], labels: readonly string[]): NamedLabelAgreement {
  const index = new Map(labels.map((l, i) => [l, i]));
  const a: number[] = [];
  const b: number[] = [];
  for (const p of pairs) {
    const i = index.get(p.a);
    const j = index.get(p.b);
    if (i === undefined || j === undefined)
      throw new RangeError(
        `labelAgreement: ${JSON.stringify(i === undefined ? p.a : p.b)} is not one of ${labels.join(', ')}`,
      );
    a.push(i);
    b.push(j);
  }
  const positions = labels.map((_, i) => i);
  if (a.length === 0)
    return {
      n: 0,
      exact: Number.NaN,
      kappa: Number.NaN,
      confusion: { labels: [...labels], matrix: labels.map(() => labels.map(() => 0)) },
    };
  return {
    n: a.length,
    exact: exactAgreement(a, b),
    kappa: cohenKappa(a, b, { labels: positions }),
    confusion: { labels: [...labels], matrix: confusionMatrix(a, b, positions).matrix },
  };
}

/**
 * Agreement of two raters (an LLM and a person, or two people) who labelled the same items
 * on the scale `labels`: exact agreement, Cohen's kappa and the confusion matrix, over
 * every item and per topic. A label outside the scale is an error.
 *
 * @example
 * labelAgreement(pairs, ['support', 'partial_support', 'not_support']).overall.kappa;
 */
export function labelAgreement(
  pairs: readonly LabelPair[],
  labels: readonly string[],
): LabelAgreementReport {
  if (new Set(labels).size !== labels.length || labels.length === 0)
    throw new RangeError('labelAgreement: labels must be distinct and not empty');
  const byTopic = new Map<string, LabelPair[]>();
  for (const p of pairs) {
    const list = byTopic.get(p.topic);
    if (list) list.push(p);
    else byTopic.set(p.topic, [p]);
  }
  return {
    overall: agreementOf(pairs, labels),
    perTopic: [...byTopic].map(([topic, list]) => ({ topic, ...agreementOf(list, labels) })),
  };
}
