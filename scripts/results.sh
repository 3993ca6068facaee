#!/usr/bin/env bash
# Regenerates docs/RESULTS.md: `engram eval` on every dataset in
# ../shared/datasets with the default provider (the embedded model): each
# mode, blended without the temporal signal, and a sweep of the semantic
# weight, against the reference figures of ../shared/datasets/README.md;
# per-category figures for locomo; version links off and by cosine alone;
# queries of one dataset asked of another; the speed benchmarks; 30
# SIGKILLs of `engram serve` under concurrent adds (bench/kill_test.py); and
# three servers on one PostgreSQL under load and failures
# (bench/cluster_load.sh); engram against the local libraries with the same
# vectors on locomo-dev and scifact (bench/peers/run.sh, one round); and
# `engram serve`'s latency against offered load (bench/load_test.sh, shorter
# phases at several rates). The key figures are also drawn as SVG charts in
# docs/results/ (scripts/results_charts.py, with gnuplot). Needs python3,
# gnuplot, Node with npm, PostgreSQL, and the engram, use_lite_convert,
# load_client and peer_tool targets built beside ENGRAM (`make results` does
# all of it); takes about 45 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
engram=$(realpath "${1:-./build/engram}")
datasets=${DATASETS:-../shared/datasets}
if [ ! -d "$datasets" ]; then
  echo "results: $datasets is missing; the evaluation datasets live there" >&2
  exit 1
fi
work=$(mktemp -d)
# A failed run keeps what it measured, to be looked at.
trap 'if [ $? -eq 0 ]; then rm -rf "$work"; else echo "results: kept $work" >&2; fi' EXIT
export ENGRAM_CONFIG="$work/none.toml"  # defaults only: no user config
export ENGRAM_HOME="$work/home"
scripts/install_model.sh "$(dirname "$engram")/use_lite_convert"

# The default weights of the local provider, and the sweep around them:
# semantic share s of the 0.85 that lexical and semantic split, temporal
# 0.15 kept; plus the defaults without the temporal signal.
defaults=$("$engram" config --json | python3 -c '
import json, sys
c = json.load(sys.stdin)
print("/".join(c[k]["value"] for k in ("fusion.w_semantic", "fusion.w_lexical", "fusion.w_temporal")))')
notemporal="${defaults%/*}/0"
sweep=""
for share in 0.2 0.3 0.4 0.5 0.6; do
  sweep+=$(python3 -c "s=$share; print(f'{0.85*s:.4g}/{0.85*(1-s):.4g}/0.15,', end='')")
done
echo "$defaults" > "$work/defaults.txt"

for dir in "$datasets"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/corpus.jsonl" ] || continue
  echo "results: evaluating $name" >&2
  "$engram" eval "$dir" --compare lexical,semantic,blended,rrf,temporal \
    --weights "$notemporal,${sweep%,}" --json > "$work/eval-$name.json"
done
# Facts that change: version links and newer-first ordering (on by
# default) off, and linked by cosine alone, on the datasets whose facts
# carry creation times.
for name in updates-dev locomo-dev locomo-dev-turns; do
  [ -f "$datasets/$name/corpus.jsonl" ] || continue
  echo "results: evaluating $name with version links off, and by cosine alone" >&2
  ENGRAM_VERSIONS_LINK_ON_WRITE=false ENGRAM_VERSIONS_NEWER_FIRST=false "$engram" eval \
    "$datasets/$name" --mode blended --json > "$work/versions-off-$name.json"
  ENGRAM_VERSIONS_LINK_MIN_OVERLAP=0 "$engram" eval \
    "$datasets/$name" --mode blended --json > "$work/versions-cosine-$name.json"
done
# Queries of one dataset asked of another's store, where nothing answers
# them: with the evidence check (default) and without it.
for pair in locomo-dev:scifact locomo-dev-turns:scifact updates-dev:cranfield \
  cranfield:locomo-dev; do
  store=${pair%%:*} queries=${pair##*:}
  [ -f "$datasets/$store/corpus.jsonl" ] && [ -f "$datasets/$queries/queries.jsonl" ] || continue
  echo "results: asking $queries's queries of $store" >&2
  "$engram" eval "$datasets/$store" --mode blended --foreign-queries "$datasets/$queries" \
    --json > "$work/foreign-on-$store-$queries.json"
  ENGRAM_FUSION_MIN_LEXICAL_COVERAGE=0 "$engram" eval "$datasets/$store" --mode blended \
    --foreign-queries "$datasets/$queries" --json > "$work/foreign-off-$store-$queries.json"
done
# Queries without their translations and gloss (on by default).
echo "results: evaluating updates-dev without query translations" >&2
ENGRAM_QUERY_TRANSLATE=false "$engram" eval "$datasets/updates-dev" \
  --compare lexical,semantic,blended --json > "$work/untranslated-updates-dev.json"
# Pseudo-relevance feedback (an option, off by default) on and off, every
# dataset.
for dir in "$datasets"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/corpus.jsonl" ] || continue
  echo "results: evaluating $name with pseudo-relevance feedback" >&2
  "$engram" eval "$dir" --compare lexical,blended --feedback --json > "$work/feedback-$name.json"
done
# Long documents read whole, in windows of at most 128 tokens whose vectors
# are averaged (local:use-lite-en-windows) or each kept, a document scoring by
# its best window (local:use-lite-en-best-window), on the two sets of long
# abstracts.
for name in scifact cranfield; do
  [ -f "$datasets/$name/corpus.jsonl" ] || continue
  for reading in windows best-window; do
    echo "results: evaluating $name with long texts read in $reading" >&2
    ENGRAM_EMBED_PROVIDER=local:use-lite-en-$reading "$engram" eval "$datasets/$name" \
      --compare lexical,semantic,blended --json > "$work/$reading-$name.json"
  done
done
# HyDE quality is reported only from a live LLM run whose model and
# settings are recorded; the recorded hypotheses in eval/hypotheses/ exercise
# the replay mechanism and are not evidence of quality (their README says why).
echo "results: speed benchmarks" >&2
RUNS=${RUNS:-5} bench/cli_speed.sh "$engram" > "$work/speed.json"
echo "results: SIGKILL of engram serve under concurrent adds" >&2
bench/kill_test.py "$(dirname "$engram")" > "$work/kill.json"
echo "results: three servers on one PostgreSQL under load and failures" >&2
bench/cluster_load.sh "$(dirname "$engram")" > "$work/cluster.json"
for name in locomo-dev scifact; do
  [ -f "$datasets/$name/corpus.jsonl" ] || continue
  echo "results: $name against the local libraries, with the same vectors" >&2
  BUILD_DIR=$(dirname "$engram") PEERS_SCORES="$work/peers-$name.tsv" \
    bench/peers/run.sh "$name" 1 > "$work/peers-$name.md"
done
echo "results: latency against offered load" >&2
REPORT="$work/load.md" RATES="10 35 70 105 140" SEARCHES=1500 ADDS=150 \
  bench/load_test.sh "$(dirname "$engram")" > "$work/load.jsonl"
if [ -x "$(dirname "$engram")/bench/embed_speed" ]; then
  bench/embed_speed.sh "$(dirname "$engram")" "$ENGRAM_HOME/models/use-lite-en.bin" \
    > "$work/embed_speed.md"
fi

python3 scripts/results_charts.py "$work" docs/results "$datasets/README.md"
python3 - "$work" "$datasets" "$(git rev-parse --short HEAD)" > docs/RESULTS.md <<'PY'
import json, os, re, sys, datetime, glob
sys.path.insert(0, "scripts")
from results_charts import PEER_SYSTEMS, bm25_references, peer_scores
work, datasets, commit = sys.argv[1:4]
refs = bm25_references(os.path.join(datasets, "README.md"))
def chart(name, text):
    """The chart docs/results/NAME.svg as Markdown, when this run drew it."""
    if os.path.exists(os.path.join("docs", "results", name + ".svg")):
        print(f"![{text}](results/{name}.svg)\n")
targets = {"scifact": 0.690, "locomo-dev": 0.65, "cranfield": 0.390}
# Which defaults were chosen on which dev sets (docs/ARCHITECTURE.md,
# "Decisions"): every figure below is on a dev set, so each says which of
# the defaults its own data helped choose.
dev_sets = ["cranfield", "locomo-dev", "locomo-dev-turns", "scifact", "updates-dev"]
chosen_on = [
    ("the fusion weights, the evidence thresholds, the stop lists and the query term forms",
     dev_sets),
    ("BM25's k1, b and tag boost", ["cranfield", "locomo-dev", "scifact"]),
    ("the version links", ["locomo-dev", "locomo-dev-turns", "updates-dev"]),
]
def chosen_line(name):
    on = [what for what, sets in chosen_on if name in sets]
    off = [what for what, sets in chosen_on if name not in sets]
    line = "Defaults chosen on data that includes this set: " + "; ".join(on) + "."
    if off:
        line += " Chosen without it: " + "; ".join(off) + "."
    return line
def wins_losses(new, old, ids=None):
    """Queries (all of `old`'s, or `ids`) where per-query nDCG@10 `new` is
    higher / lower / equal than `old`."""
    ids = list(old.keys()) if ids is None else ids
    w = sum(1 for q in ids if new[q] > old[q] + 1e-9)
    l = sum(1 for q in ids if new[q] < old[q] - 1e-9)
    return w, l, len(ids) - w - l
defaults = open(os.path.join(work, "defaults.txt")).read().strip()
cpu = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
print("# Results\n")
print(f"Generated by `scripts/results.sh` at commit `{commit}` on "
      f"{datetime.date.today().isoformat()}; {os.cpu_count()} cores ({cpu}).")
print("Rerun with `make results` (about 45 minutes; it installs gnuplot and builds the bench "
      "tools first). The charts are drawn from the same run by `scripts/results_charts.py`. "
      "All figures use the default configuration: the embedded "
      f"`local` model and its default weights {defaults} (semantic/lexical/temporal).\n")
print("## Retrieval quality\n")
print("`engram eval DATASET --compare lexical,semantic,blended,rrf,temporal --weights ...` "
      "(trec_eval semantics; macro-averaged over queries with at least one relevant document). "
      "Each query searches only its own scope; the clock is pinned to the newest `created_at` of "
      "the corpus. `semantic` ranks the top vector hits by cosine alone; `rrf` is reciprocal rank "
      "fusion (k = 60) of the lexical and semantic rankings; `blended, no temporal` is the "
      "default blend with the temporal weight set to 0.\n")
chart("ndcg-modes", "nDCG@10 per dev dataset: engram lexical, semantic and blended beside the "
      "BM25 reference")
metrics = ["nDCG@10", "P@10", "recall@10", "MRR@10", "recall@100", "map"]
sweeps = {}
for path in sorted(glob.glob(os.path.join(work, "eval-*.json"))):
    name = os.path.basename(path)[len("eval-"):-5]
    report = json.load(open(path))
    results = report["results"]
    nt = [k for k in results if k.startswith("blended[") and k.endswith("/0]")][0]
    rows = [(m, results[m]) for m in ("lexical", "semantic", "blended", "rrf", "temporal")]
    rows.append(("blended, no temporal", results[nt]))
    print(f"### {name} ({report['queries']} queries; corpus indexed and embedded in "
          f"{report['index_seconds']:.0f} s)\n")
    print(chosen_line(name) + "\n")
    print("| mode | " + " | ".join(metrics) + " |")
    print("|---|" + "---|" * len(metrics))
    for mode, m in rows:
        print(f"| {mode} | " + " | ".join(f"{m[k]:.4f}" for k in metrics) + " |")
    bm25 = refs.get(name)
    if bm25 is not None:
        print(f"| *reference: BM25* | {bm25:.3f} |" + " |" * (len(metrics) - 1))
    print()
    lex, bl = results["lexical"]["nDCG@10"], results["blended"]["nDCG@10"]
    line = f"Blended nDCG@10 {bl:.4f} vs lexical {lex:.4f} ({bl - lex:+.4f})"
    if name in targets:
        t = targets[name]
        line += f"; target {t:.2f}: {'met' if bl >= t - 5e-5 else 'not met'}"
    print(line + ".\n")
    per = report["per_query_ndcg10"]
    print("Per query against lexical (nDCG@10 higher / lower / equal): " + "; ".join(
        "{} {}/{}/{}".format(m, *wins_losses(per[m], per["lexical"])) for m in ("semantic", "blended", "rrf",
                                                                "temporal")) + ".\n")
    langs = {}
    for l in open(os.path.join(datasets, name, "queries.jsonl"), encoding="utf-8"):
        q = json.loads(l)
        lang = (q.get("metadata") or {}).get("lang")
        if lang and q["_id"] in per["lexical"]:
            langs.setdefault(lang, []).append(q["_id"])
    untranslated = os.path.join(work, f"untranslated-{name}.json")
    if len(langs) > 1 and os.path.exists(untranslated):
        print(f"nDCG@10 by query language ({name}). A Portuguese query's terms also match "
              "their English stems and, by default, their English translations "
              "(`query.translate`), and the query is embedded with its English gloss "
              "(`query.translate_vector`); an English query's terms also match, in the facts "
              "detected as Portuguese, their Portuguese stems and, by default, their "
              "Portuguese translations (docs/ARCHITECTURE.md \"A query term has forms\"). "
              "The run without translations is `ENGRAM_QUERY_TRANSLATE=false` (the stems "
              "stay). Per query: higher / lower / equal with translations than without.\n")
        off = json.load(open(untranslated))["per_query_ndcg10"]
        cols = ["lexical", "semantic", "blended"]
        print("| language | queries | " + " | ".join(f"{c}, no translations | {c}" for c in cols)
              + " | blended per query |")
        print("|---|---|" + "---|---|" * len(cols) + "---|")
        for lang, ids in sorted(langs.items()):
            mean = lambda p, c: sum(p[c][i] for i in ids) / len(ids)
            cells = [f"{mean(off, c):.4f} | {mean(per, c):.4f}" for c in cols]
            w, l, t = wins_losses(per["blended"], off["blended"], ids)
            print(f"| {lang} | {len(ids)} | " + " | ".join(cells) + f" | {w}/{l}/{t} |")
        print()
    if "current@1" in results["blended"]:
        print(f"Knowledge updates ({name}): current@1 is the share of questions about a fact "
              "that changed whose first result is the current fact; stale-above@10 the share "
              "where a superseded fact ranks above every current one in the top 10; both@10 the "
              "share of questions with two true look-alike facts that get both in the top 10.\n")
        upd = ["current@1", "stale-above@10", "both@10"]
        print("| mode | " + " | ".join(upd) + " |")
        print("|---|" + "---|" * len(upd))
        for mode, m in rows:
            print(f"| {mode} | " + " | ".join(f"{m[k]:.4f}" for k in upd) + " |")
        print()
    sweeps[name] = {k: v["nDCG@10"] for k, v in results.items()
                    if k.startswith("blended[") and not k.endswith("/0]")}
    if name.startswith("locomo"):
        tags = {}
        for l in open(os.path.join(datasets, name, "queries.jsonl"), encoding="utf-8"):
            q = json.loads(l)
            for t in (q.get("metadata") or {}).get("tags", []) or ["(none)"]:
                tags.setdefault(t, []).append(q["_id"])
        per = report["per_query_ndcg10"]
        print(f"nDCG@10 by question category ({name}):\n")
        cols = ["lexical", "semantic", "blended", "rrf"]
        print("| category | queries | " + " | ".join(cols) + " |")
        print("|---|---|" + "---|" * len(cols))
        for t, ids in sorted(tags.items()):
            ids = [i for i in ids if i in per["lexical"]]
            if not ids:
                continue
            vals = [sum(per[c][i] for i in ids) / len(ids) for c in cols]
            print(f"| {t} | {len(ids)} | " + " | ".join(f"{v:.4f}" for v in vals) + " |")
        print()
feedback = sorted(glob.glob(os.path.join(work, "feedback-*.json")))
if feedback:
    print("### Pseudo-relevance feedback (HyDE without an LLM)\n")
    print("`engram eval DATASET --compare lexical,blended --feedback`: each mode without and with "
          "`feedback.enabled` at its defaults (10 feedback facts, 10 terms, term weight 0.5, "
          "vector weight 0.5; docs/ARCHITECTURE.md \"Pseudo-relevance feedback\"). It would be "
          "a default only if it helped blended search on every dev set. Per query: nDCG@10 "
          "higher / lower / equal with feedback than without, in the same mode.\n")
    print("| dataset | lexical | lexical + feedback | per query | blended | blended + feedback "
          "| per query |")
    print("|---|---|---|---|---|---|---|")
    helped = []
    for path in feedback:
        name = os.path.basename(path)[len("feedback-"):-5]
        r = json.load(open(path))
        res, per = r["results"], r["per_query_ndcg10"]
        cells = []
        for m in ("lexical", "blended"):
            w, l, t = wins_losses(per[m + "+feedback"], per[m])
            cells += [f"{res[m]['nDCG@10']:.4f}", f"{res[m + '+feedback']['nDCG@10']:.4f}",
                      f"{w}/{l}/{t}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
        if res["blended+feedback"]["nDCG@10"] > res["blended"]["nDCG@10"]:
            helped.append(name)
    print(f"\nBlended search gains with feedback on {len(helped)} of {len(feedback)} datasets"
          + (f" ({', '.join(helped)})" if helped else "") + ".\n")
windows = sorted(glob.glob(os.path.join(work, "windows-*.json")))
if windows:
    print("### Long documents read whole\n")
    print("The model reads a text's first 128 tokens (the default, `local:use-lite-en`). "
          "`local:use-lite-en-windows` reads a longer text in windows of at most 128 tokens and "
          "averages their vectors (mean); `local:use-lite-en-best-window` keeps each window's "
          "vector and scores a document by its best window (max). Each reading is an embedding "
          "space of its own, chosen by `embed.provider`. nDCG@10, and per query the blended "
          "runs higher/lower/equal against the first 128 tokens:\n")
    print("| dataset | semantic: first 128 / mean / max | blended: first 128 / mean / max "
          "| blended mean vs first | blended max vs first |")
    print("|---|---|---|---|---|")
    for path in windows:
        name = os.path.basename(path)[len("windows-"):-5]
        runs = [json.load(open(os.path.join(work, f)))
                for f in ("eval-" + name + ".json", "windows-" + name + ".json",
                          "best-window-" + name + ".json")]
        cells = [" / ".join(f"{r['results'][m]['nDCG@10']:.4f}" for r in runs)
                 for m in ("semantic", "blended")]
        first = runs[0]["per_query_ndcg10"]["blended"]
        for r in runs[1:]:
            cells.append("{}/{}/{}".format(*wins_losses(r["per_query_ndcg10"]["blended"], first)))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
print("### Weight sweep\n")
print("Blended nDCG@10 with the semantic share s of the 0.85 that semantic and lexical split "
      "(temporal 0.15), on the same indexed corpora. The default is one setting for all data.\n")
names = sorted(sweeps)
keys = sorted({k for v in sweeps.values() for k in v}, key=lambda k: float(k[8:].split("/")[0]))
print("| weights (s/l/t) | " + " | ".join(names) + " | mean |")
print("|---|" + "---|" * (len(names) + 1))
for k in keys:
    vals = [sweeps[n].get(k, float("nan")) for n in names]
    print(f"| {k[8:-1]} | " + " | ".join(f"{v:.4f}" for v in vals) +
          f" | {sum(vals) / len(vals):.4f} |")
print()
versions = sorted(glob.glob(os.path.join(work, "versions-off-*.json")))
if versions:
    print("### Facts that change: version links\n")
    print("On by default: each fact is linked on write to its nearest fact of the scope when "
          "their cosine is at least 0.5 and their weighted term overlap at least 0.4 "
          "(`versions.*`, docs/ARCHITECTURE.md \"Facts that change\"), and a search ranks a "
          "newer version just above an older one it finds. Blended figures with links off "
          "(`ENGRAM_VERSIONS_LINK_ON_WRITE=false ENGRAM_VERSIONS_NEWER_FIRST=false`), linked by "
          "cosine alone (`ENGRAM_VERSIONS_LINK_MIN_OVERLAP=0`) and with the defaults. The "
          "defaults were chosen on these three datasets together.\n")
    cols = ["nDCG@10", "current@1", "stale-above@10", "both@10"]
    print("| dataset | figure | off | cosine alone | default |")
    print("|---|---|---|---|---|")
    for path in versions:
        name = os.path.basename(path)[len("versions-off-"):-5]
        off = json.load(open(path))["results"]["blended"]
        cos = json.load(open(os.path.join(work, f"versions-cosine-{name}.json")))["results"]["blended"]
        on = json.load(open(os.path.join(work, "eval-" + name + ".json")))["results"]["blended"]
        for k in cols:
            if k in on:
                print(f"| {name} | {k} | {off[k]:.4f} | {cos[k]:.4f} | {on[k]:.4f} |")
    print()
foreign = sorted(glob.glob(os.path.join(work, "foreign-on-*.json")))
if foreign:
    print("### Searches for what the store does not hold\n")
    print("`engram eval STORE --mode blended --foreign-queries OTHER`: every query of OTHER asked "
          "in every scope of STORE, 10 results deep. Nothing in STORE answers them, so a search "
          "should return nothing. By default a search answers only when some candidate shows "
          "evidence of being about the query (cosine at least `vector.match_cosine` 0.42, or at "
          "least `vector.min_cosine` with a query term matched, or matched terms carrying 30% "
          "of the query's idf weight); `ENGRAM_FUSION_MIN_LEXICAL_COVERAGE=0` turns the check off. "
          "The thresholds were chosen on all dev sets together; STORE's own nDCG@10 is in the "
          "tables above, with the check on.\n")
    print("| store | queries of | searches | empty, check off | empty, default | "
          "results per search, off / default |")
    print("|---|---|---|---|---|---|")
    for path in foreign:
        on = json.load(open(path))["results"]["blended"]["foreign"]
        off = json.load(open(path.replace("foreign-on-", "foreign-off-")))["results"]["blended"]["foreign"]
        store = os.path.basename(path)[len("foreign-on-"):-5]
        store = store[: -len(on["dataset"]) - 1]
        share = lambda f: f["empty"] / f["searches"] if f["searches"] else 0.0
        print(f"| {store} | {on['dataset']} | {on['searches']:,} | {share(off):.3f} | "
              f"{share(on):.3f} | {off['mean_hits']:.2f} / {on['mean_hits']:.2f} |")
    print()
peers = sorted(glob.glob(os.path.join(work, "peers-*.tsv")))
if peers:
    print("## Against the local libraries users would otherwise pick\n")
    print("`bench/peers/run.sh DATASET 1`: SQLite FTS5 (better-sqlite3), LanceDB, Orama and usearch "
          "index the same rows and, for vectors, the same vectors (the embedded model's, which "
          "engram computed once), so the vector and hybrid rows compare search, not models; one "
          "scorer (engram's trec_eval metrics) for all. engram's searches run in process with the "
          "system clock as now, so blended here is `engram eval`'s blended without the pinned "
          "clock. W/L/T: queries whose nDCG@10 is above, below or equal to engram blended's. One "
          "round, for quality only: the libraries' latency, from three interleaved rounds, is in "
          "`bench/RESULTS-peers.md`. No default was chosen on these runs.\n")
    chart("ndcg-peers", "nDCG@10 of engram and the local libraries with the same vectors")
    names = [os.path.basename(p)[len("peers-"):-4] for p in peers]
    tables = [peer_scores(p) for p in peers]
    print("| system | " + " | ".join(f"{n}: nDCG@10 / recall@100 / W-L-T" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for system, label in PEER_SYSTEMS:
        cells = [t.get(system) for t in tables]
        print(f"| {label} | " + " | ".join(
            "" if c is None else f"{c[0]:.4f} / {c[1]:.4f} / {c[2]}-{c[3]}-{c[4]}" for c in cells) + " |")
    print()
speed = json.load(open(os.path.join(work, "speed.json")))
print("## Speed\n")
print("`bench/cli_speed.sh` (whole processes, wall clock, median of several runs; "
      "the machine is shared, so treat single figures as indicative).\n")
print("| what | figure | target |")
print("|---|---|---|")
print(f"| `engram import` of scifact's {speed['import_docs']:,} documents into a fresh store, "
      f"keyword-only (median of {speed['import_runs']}) | {speed['import_seconds_median']:.2f} s "
      "| < 10 s |")
if "embed_import_seconds" in speed:
    print(f"| `engram import` of {speed['embed_import_facts']:,} sentence facts with the local "
          f"model | {speed['embed_import_seconds']:.1f} s | |")
print(f"| `engram search` on a {speed['search_facts']:,}-fact store with the local model, query "
      f"embedding included, one process per query ({speed['search_runs']} runs) | median "
      f"{speed['search_ms_median']:.1f} ms, p95 {speed['search_ms_p95']:.1f} ms | < 150 ms |")
if "lexical_search_ms_median" in speed:
    print(f"| the same searches with `--mode lexical` | median "
          f"{speed['lexical_search_ms_median']:.1f} ms, p95 {speed['lexical_search_ms_p95']:.1f} ms "
          "| < 100 ms |")
print()
load = os.path.join(work, "load.jsonl")
if os.path.exists(load):
    print("### Latency against offered load (`bench/load_test.sh`)\n")
    print("`RATES=\"10 35 70 105 140\" SEARCHES=1500 ADDS=150 bench/load_test.sh`: `engram serve` "
          "with the local model on a 10,000-fact store (scifact sentences), 50 keep-alive clients "
          "on loopback sending searches and adds (one add per ten searches) at each offered rate, "
          "an open loop whose latencies count from when each request was due; then the same "
          "clients unpaced, for the server's capacity. Shorter phases than the standalone run "
          "in `bench/RESULTS-load.md`.\n")
    chart("latency-load", "Search and add latency of engram serve against offered load")
    print(open(os.path.join(work, "load.md")).read().split("\n\n", 1)[1])
embed = os.path.join(work, "embed_speed.md")
if os.path.exists(embed):
    print("### Embedding speed (`bench/embed_speed.sh`)\n")
    print(open(embed).read())
print("### Killed under concurrent adds (`bench/kill_test.py`)\n")
print(open("bench/RESULTS-kill.md").read())
print("### Three servers on one PostgreSQL, one killed, the database crashed "
      "(`bench/cluster_load.sh`)\n")
print(open("bench/RESULTS-cluster.md").read())
print("## Figures from other runs\n")
print("Every figure above comes from this one run, at the commit named at the top. The "
      "benchmarks below take too long to run here and write their own files, each naming the "
      "commit and machine it ran on: the HTTP server under load in `bench/RESULTS-load.md` "
      "(`bench/load_test.sh`, about 15 minutes), vector search against FAISS and hnswlib in "
      "`bench/RESULTS-vector.md` (`bench/vector_search.sh`, about half an hour), exact scans "
      "against the memory bandwidth of one core and the int8 first pass in "
      "`bench/RESULTS-scan.md` (`bench/vector_search.sh` with the read, flat, int8 and FAISS "
      "engines), a 200,000-vector HNSW scope through the engine (restart, recall, searches "
      "beside adds) in `bench/RESULTS-hnsw-live.md` (`bench/hnsw_live.sh`), engram against "
      "LanceDB, Orama, usearch and SQLite FTS5 with the same vectors in "
      "`bench/RESULTS-peers.md` (`bench/peers/run.sh`), one-shot searches against "
      "`engram serve` on the same store in `bench/RESULTS-oneshot.md` (`bench/cli_speed.sh` "
      "run on its own, at the commit it names), the SQLite and "
      "PostgreSQL stores side by side (nDCG@10 per query on every dev dataset, CPU per "
      "search at 10,000 facts) in `bench/RESULTS-stores.md` (`bench/store_compare.sh`), and "
      "the local "
      "model's cosine distribution, which set its `min_cosine` default, in "
      "`bench/RESULTS-cosine.md` (`bench/cosine_distribution.sh`).")
PY
# No path of the machine it ran on.
sed -i -e "s|$work|<tmp>|g" -e "s|$PWD/||g" -e "s|$HOME|~|g" docs/RESULTS.md
echo "results: wrote docs/RESULTS.md" >&2
