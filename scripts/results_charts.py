#!/usr/bin/env python3
"""Draws the key figures of docs/RESULTS.md as SVG with gnuplot, from the
files one run of scripts/results.sh left in WORK:

  ndcg-modes.svg    nDCG@10 per dev dataset: engram's lexical, semantic and
                    blended modes beside the BM25 reference figures of
                    ../shared/datasets/README.md (eval-NAME.json)
  ndcg-peers.svg    nDCG@10 of engram and the local libraries with the same
                    vectors, per dataset (peers-NAME.tsv, from
                    bench/peers/run.sh)
  latency-load.svg  search and add latency of `engram serve` against the
                    offered load, and its unpaced capacity (load.jsonl, from
                    bench/load_test.sh)

  results_charts.py WORK OUT_DIR DATASETS_README

DATASETS_README is ../shared/datasets/README.md, whose table holds the BM25
reference figures. The charts of an earlier run are removed first; a chart
whose input is missing is not drawn and is named on stderr. The SVG holds no
date or path, so the same figures draw the same file.
"""
import glob
import json
import os
import re
import subprocess
import sys

# Systems shown against the peers, in this order: each family's engram
# search first. engram over HTTP ranks as in process and is left out.
PEER_SYSTEMS = [
    ("engram-lexical", "engram lexical"),
    ("sqlite-fts5-bm25", "SQLite FTS5 bm25"),
    ("lancedb-fts", "LanceDB full text"),
    ("orama-fulltext", "Orama full text"),
    ("engram-semantic", "engram semantic"),
    ("lancedb-vector", "LanceDB vector"),
    ("orama-vector", "Orama vector"),
    ("usearch-hnsw", "usearch HNSW"),
    ("engram-blended", "engram blended"),
    ("lancedb-hybrid-rrf", "LanceDB hybrid (RRF)"),
    ("orama-hybrid", "Orama hybrid"),
]

TERMINAL = ('set terminal svg size {w},{h} noenhanced font "DejaVu Sans,12" '
            'background rgb "white"\n')
COLOURS = ["#8c8c8c", "#d9822b", "#2b6fd6", "#6b4fbb", "#2e9a5b"]


def bm25_references(readme):
    """{dataset: BM25 nDCG@10 or None} from the datasets README's table."""
    refs = {}
    for line in open(readme, encoding="utf-8"):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 5 and cells[1] and not cells[1].startswith("-") and cells[1] != "dataset":
            bm25 = re.search(r"BM25[^0-9]*([0-9.]+)", cells[5])
            refs[cells[1]] = float(bm25.group(1)) if bm25 else None
    return refs


def peer_scores(path):
    """{system: (nDCG@10, recall@100, wins, losses, ties)} from a table of
    peer_tool score (bench/peers/run.sh's PEERS_SCORES)."""
    scores = {}
    for line in open(path, encoding="utf-8"):
        run, ndcg, recall, wins, losses, ties = line.rstrip("\n").split("\t")
        scores[os.path.basename(run)[:-len(".run")]] = (float(ndcg), float(recall), int(wins),
                                                        int(losses), int(ties))
    return scores


def gnuplot(script, data_path, data, out):
    """Writes `data` to `data_path`, which `script` plots into `out`."""
    with open(data_path, "w", encoding="utf-8") as f:
        f.write(data)
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        raise SystemExit(f"results_charts: gnuplot failed drawing {out}:\n{result.stderr}")


def histogram(work, out, title, rows, series, ylabel, width=900, height=420, rotate=False):
    """A clustered bar chart: one cluster per row label, one bar per series;
    rows are (label, [value or None per series])."""
    path = os.path.join(work, os.path.basename(out) + ".dat")
    text = "label\t" + "\t".join(f'"{s}"' for s in series) + "\n"
    for label, values in rows:
        text += f'"{label}"\t' + "\t".join("NaN" if v is None else f"{v:.4f}" for v in values) + "\n"
    plots = ", ".join(
        f"'{path}' using {i + 2}:xtic(1) title columnheader({i + 2}) lc rgb '{COLOURS[i % len(COLOURS)]}'"
        for i in range(len(series)))
    script = TERMINAL.format(w=width, h=height) + f"""
set output '{out}'
set title "{title}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set yrange [0:1]
set ytics 0.1
set grid ytics
set ylabel "{ylabel}"
set key top left horizontal
{"set xtics rotate by -25" if rotate else ""}
plot {plots}
"""
    gnuplot(script, path, text, out)


def modes_chart(work, out_dir, references):
    evals = sorted(glob.glob(os.path.join(work, "eval-*.json")), key=lambda p: os.path.basename(p)[:-5])
    if not evals:
        return "no eval-*.json"
    rows = []
    for path in evals:
        name = os.path.basename(path)[len("eval-"):-len(".json")]
        results = json.load(open(path))["results"]
        rows.append((name, [references.get(name)] +
                     [results[m]["nDCG@10"] for m in ("lexical", "semantic", "blended")]))
    histogram(work, os.path.join(out_dir, "ndcg-modes.svg"),
              "nDCG@10 per dev dataset: engram's modes and the BM25 reference", rows,
              ["BM25 reference", "engram lexical", "engram semantic", "engram blended"],
              "nDCG@10")
    return None


def peers_chart(work, out_dir):
    tables = sorted(glob.glob(os.path.join(work, "peers-*.tsv")))
    if not tables:
        return "no peers-*.tsv"
    datasets = [os.path.basename(p)[len("peers-"):-len(".tsv")] for p in tables]
    scores = [peer_scores(p) for p in tables]
    rows = [(label, [s[system][0] if system in s else None for s in scores])
            for system, label in PEER_SYSTEMS]
    histogram(work, os.path.join(out_dir, "ndcg-peers.svg"),
              "nDCG@10 with the same vectors: engram and the local libraries", rows, datasets,
              "nDCG@10", width=1000, height=460, rotate=True)
    return None


def latency_chart(work, out_dir):
    path = os.path.join(work, "load.jsonl")
    if not os.path.exists(path):
        return "no load.jsonl"
    phases = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    offered = sorted((p for p in phases if p["offered_rate"] > 0 and p["clients"] > 1),
                     key=lambda p: p["offered_rate"])
    capacity = [p for p in phases if p["offered_rate"] == 0 and p["clients"] > 1]
    if not offered:
        return "no offered phase in load.jsonl"
    data = os.path.join(work, "latency-load.dat")
    text = "rate\tsearch_p50\tsearch_p95\tadd_p50\tadd_p95\n"
    for p in offered:
        text += (f"{p['offered_rate']:g}\t{p['search']['p50_ms']:.2f}\t{p['search']['p95_ms']:.2f}"
                 f"\t{p['add']['p50_ms']:.2f}\t{p['add']['p95_ms']:.2f}\n")
    top = max(p["offered_rate"] for p in offered)
    marks = ""
    if capacity:
        cap = capacity[0]["throughput_rps"]
        top = max(top, cap)
        marks = (f'set arrow from {cap:.1f}, graph 0 to {cap:.1f}, graph 1 nohead dt 2 lc rgb "#b3261e"\n'
                 f'set label "capacity {cap:.0f} req/s" at {cap:.1f}, graph 0.95 right offset -0.5,0 '
                 'tc rgb "#b3261e"\n')
    out = os.path.join(out_dir, "latency-load.svg")
    script = TERMINAL.format(w=900, h=420) + f"""
set output '{out}'
set title "engram serve, {offered[0]['facts_before']:,} facts, {offered[0]['clients']} clients: latency against offered load"
set xlabel "offered requests per second (searches and adds)"
set ylabel "latency (ms, from when each request was due)"
set xrange [0:{top * 1.1:.1f}]
set yrange [0:*]
set grid
set key top left
{marks}
plot '{data}' using 1:2 with linespoints lw 2 pt 7 lc rgb "#2b6fd6" title "search p50", \\
     '' using 1:3 with linespoints lw 2 pt 7 dt 2 lc rgb "#2b6fd6" title "search p95", \\
     '' using 1:4 with linespoints lw 2 pt 5 lc rgb "#2e9a5b" title "add p50", \\
     '' using 1:5 with linespoints lw 2 pt 5 dt 2 lc rgb "#2e9a5b" title "add p95"
"""
    gnuplot(script, data, text, out)
    return None


def main():
    work, out_dir, readme = sys.argv[1:4]
    references = bm25_references(readme)
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "*.svg")):
        os.remove(old)
    for name, draw in (("ndcg-modes", lambda: modes_chart(work, out_dir, references)),
                       ("ndcg-peers", lambda: peers_chart(work, out_dir)),
                       ("latency-load", lambda: latency_chart(work, out_dir))):
        missing = draw()
        if missing:
            print(f"results_charts: {name}.svg not drawn: {missing}", file=sys.stderr)


if __name__ == "__main__":
    main()
