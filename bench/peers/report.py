#!/usr/bin/env python3
"""The Markdown tables of bench/peers/run.sh from its work directory.

  report.py WORK ROUNDS

Reads WORK/scores.tsv (peer_tool score), WORK/times/NAME.ROUND.tsv (wall and
CPU ms per query) and WORK/query_embed.tsv. Per system: nDCG@10 and
recall@100; nDCG@10 wins, losses and ties per query against engram blended
(in process); wall ms per query as the median over rounds, then the median
and 95th percentile over queries; CPU ms per query as the mean over every
round; and that CPU against engram in process of the same kind of search.
"""
import os
import statistics
import sys

FAMILIES = [
    ("full text (BM25)", ["engram-lexical", "engram-http-lexical", "sqlite-fts5-bm25",
                          "lancedb-fts", "orama-fulltext"]),
    ("vector", ["engram-semantic", "engram-http-semantic", "lancedb-vector", "orama-vector",
                "usearch-hnsw"]),
    ("hybrid", ["engram-blended", "engram-http-blended", "lancedb-hybrid-rrf", "orama-hybrid"]),
]


def read_times(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                wall, cpu = line.split("\t")
                rows.append((float(wall), float(cpu)))
    return rows


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * (len(ordered) - 1) + 0.5))]


def main():
    work, rounds = sys.argv[1], int(sys.argv[2])
    scores = {}
    with open(os.path.join(work, "scores.tsv"), encoding="utf-8") as f:
        for line in f:
            path, ndcg, recall, wins, losses, ties = line.rstrip("\n").split("\t")
            name = os.path.basename(path)[:-len(".run")]
            scores[name] = (float(ndcg), float(recall), int(wins), int(losses), int(ties))
    timing = {}
    for name in scores:
        per_round = [read_times(os.path.join(work, "times", f"{name}.{r}.tsv"))
                     for r in range(1, rounds + 1)]
        walls = [statistics.median(r[q][0] for r in per_round) for q in range(len(per_round[0]))]
        cpu = statistics.mean(c for r in per_round for _, c in r)
        timing[name] = (statistics.median(walls), percentile(walls, 0.95), cpu)
    embed = read_times(os.path.join(work, "query_embed.tsv"))

    print("| search | system | nDCG@10 | recall@100 | vs engram blended (W/L/T) "
          "| wall p50 (ms) | wall p95 (ms) | CPU/query (ms) | CPU vs engram |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|")
    for family, names in FAMILIES:
        base = timing.get(names[0], (0, 0, 0))[2]
        for name in names:
            if name not in scores:
                continue
            ndcg, recall, wins, losses, ties = scores[name]
            wall, wall95, cpu = timing[name]
            ratio = f"{cpu / base:.2f}" if base > 0 else "-"
            print(f"| {family} | {name} | {ndcg:.4f} | {recall:.4f} | {wins}/{losses}/{ties} "
                  f"| {wall:.2f} | {wall95:.2f} | {cpu:.2f} | {ratio} |")
    print()
    print(f"engram's own query embedding (part of every engram semantic and blended search "
          f"above, not of the libraries', which are given the vectors): wall p50 "
          f"{statistics.median(w for w, _ in embed):.2f} ms, CPU mean "
          f"{statistics.mean(c for _, c in embed):.2f} ms per query.")


if __name__ == "__main__":
    main()
