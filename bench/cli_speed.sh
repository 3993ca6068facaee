#!/usr/bin/env bash
# Whole-process speed of the engram CLI, median of several runs:
#  - import: scifact's 5,183 documents into a fresh store;
#  - search: `engram search` on a 10,000-fact store (scifact sentences),
#    one process per query, access recording on as a user would run it.
# Prints one JSON object. Needs ../shared/datasets/scifact and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
engram=$(realpath "${1:-./build/engram}")
runs=${RUNS:-5}
dataset=${DATASETS:-../shared/datasets}/scifact
if [ ! -f "$dataset/corpus.jsonl" ]; then
  echo "bench: $dataset/corpus.jsonl is missing; the speed benchmark needs the scifact dataset" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ENGRAM_CONFIG="$work/none.toml"
python3 bench/make_facts.py "$dataset/corpus.jsonl" docs "$work/docs.jsonl"
python3 bench/make_facts.py "$dataset/corpus.jsonl" sentences 10000 "$work/facts10k.jsonl"

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

import_times=()
for i in $(seq "$runs"); do
  rm -f "$work"/import.db*
  t0=$(now)
  "$engram" --db "$work/import.db" import "$work/docs.jsonl" >/dev/null
  t1=$(now)
  import_times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
done
import_median=$(printf '%s\n' "${import_times[@]}" | median)
docs=$(wc -l < "$work/docs.jsonl")

"$engram" --db "$work/search.db" import "$work/facts10k.jsonl" >/dev/null
facts=$(wc -l < "$work/facts10k.jsonl")
queries=()
while IFS= read -r q; do queries+=("$q"); done < <(python3 -c '
import json,sys
for i,l in enumerate(open(sys.argv[1])):
    if i >= 20: break
    print(json.loads(l)["text"])' "$dataset/queries.jsonl")
search_times=()
for i in $(seq "$runs"); do
  for q in "${queries[@]}"; do
    t0=$(now)
    "$engram" --db "$work/search.db" search "$q" -k 10 >/dev/null
    t1=$(now)
    search_times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) * 1000 }')")
  done
done
search_median=$(printf '%s\n' "${search_times[@]}" | median)
search_p95=$(printf '%s\n' "${search_times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int(NR*0.95)]}')

printf '{"import_docs": %d, "import_seconds_median": %.3f, "import_runs": %d, "search_facts": %d, "search_ms_median": %.1f, "search_ms_p95": %.1f, "search_runs": %d}\n' \
  "$docs" "$import_median" "$runs" "$facts" "$search_median" "$search_p95" "${#search_times[@]}"
