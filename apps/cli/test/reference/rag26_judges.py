"""Reference values for apps/cli/test/judge-report.test.ts, written independently of assay.

Reads the five TREC RAG 2026 development label sets (../shared/data/trec_rag_2026_dev/
rag25-dev-umbrela-qrels) and prints, with numpy only:
  - per label set, how many items got each grade 0-4;
  - for each prompt-version pair (v1 -> v2 of Qwen3.5-9B and of Ministral-3-14B), over the
    items both label: the transition matrix (rows v1, columns v2), exact agreement, the
    share that changed, the mean grade shift, and Cohen's kappa unweighted, linear and
    quadratic on the 0-4 scale (as sklearn's cohen_kappa_score(labels=range(5))).

Usage: python3 apps/cli/test/reference/rag26_judges.py [DATA_DIR]
"""
import sys

import numpy as np

data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
base = f"{data}/trec_rag_2026_dev/rag25-dev-umbrela-qrels"
files = {
    "gpt5.5": f"{base}/rag25-climbmix-umbrela-codex-gpt5.5-medium-reasoning-v1.qrels",
    "qwen-v2": f"{base}/rag25-climbmix-umbrela-qwen3.5-9b-v2.qrels",
    "ministral-v2": f"{base}/rag25-climbmix-umbrela-ministral-3-14b-instruct-2512-v2.qrels",
    "qwen-v1": f"{base}/older-versions/rag25-climbmix-umbrela-qwen3.5-9b-v1.qrels",
    "ministral-v1": f"{base}/older-versions/rag25-climbmix-umbrela-ministral-3-14b-instruct-2512-v1.qrels",
}


def read(path):
    labels = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4:
                labels[(parts[0], parts[2])] = int(parts[3])
    return labels


def kappa(table, weights):
    k = table.shape[0]
    i, j = np.indices((k, k))
    w = {"none": (i != j).astype(float), "linear": np.abs(i - j), "quadratic": (i - j) ** 2}[weights]
    n = table.sum()
    expected = np.outer(table.sum(1), table.sum(0)) / n
    return 1 - (w * table).sum() / (w * expected).sum()


sets = {name: read(path) for name, path in files.items()}
for name, labels in sets.items():
    counts = np.bincount(list(labels.values()), minlength=5)
    print(name, "grade counts", counts.tolist())
for old, new in [("qwen-v1", "qwen-v2"), ("ministral-v1", "ministral-v2")]:
    a, b = sets[old], sets[new]
    both = sorted(set(a) & set(b))
    table = np.zeros((5, 5), dtype=int)
    for item in both:
        table[a[item], b[item]] += 1
    n = table.sum()
    shift = sum((b[item] - a[item]) for item in both) / n
    print(old, "->", new, "items", int(n))
    print("  transition", table.tolist())
    print("  agreement", np.trace(table) / n, "changed", 1 - np.trace(table) / n, "mean shift", shift)
    for w in ["none", "linear", "quadratic"]:
        print("  kappa", w, repr(kappa(table.astype(float), w)))
