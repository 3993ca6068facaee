#!/usr/bin/env bash
# Whole-process speed of the engram CLI:
#  - import: scifact's 5,183 documents into a fresh store, keyword-only
#    (ENGRAM_EMBED_PROVIDER=null, as "import_embed_provider" says), so it
#    stays comparable with the 10 s import target; median of RUNS;
#  - embed import: 10,000 scifact sentences into a fresh store with the
#    embedded model (provider local), embedding included; timed once;
#  - search: `engram search` on that 10,000-fact store, one process per
#    query, access recording on as a user would run it, wall time including
#    loading the model and embedding the query; RUNS x 20 queries each of
#    the default blended search with the local model (search_ms_* and
#    semantic_search_ms_*, the same figures) and of `--mode lexical` on the
#    same store (lexical_search_ms_*), alternated query by query so that
#    load from other processes falls on both alike. Target: < 150 ms;
#  - the same searches, in the same turn, asked of `engram serve` on the
#    same store over one kept-alive loopback connection after each round
#    of one-shot searches (server_search_ms_*, server_lexical_search_ms_*:
#    from sending the request to reading the whole answer), so a one-shot
#    process compares with the server it would otherwise have asked
#    (oneshot_to_server_ratio, of the medians).
# The model is installed into a temporary ENGRAM_HOME with
# scripts/install_model.sh and the use_lite_convert found next to engram.
# Prints one JSON object. Needs ../shared/datasets/scifact and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
engram=$(realpath "${1:-./build/engram}")
converter=$(dirname "$engram")/use_lite_convert
runs=${RUNS:-5}
dataset=${DATASETS:-../shared/datasets}/scifact
require_dataset cli_speed "$dataset" || exit 1
if [ ! -x "$converter" ]; then
  echo "bench: $converter is missing; build the use_lite_convert target first" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ENGRAM_CONFIG="$work/none.toml"
export ENGRAM_HOME="$work/home"
unset ENGRAM_EMBED_PROVIDER ENGRAM_EMBED_MODELS_DIR
install_model "$converter" "$ENGRAM_HOME/models" || exit 1
python3 bench/make_facts.py "$dataset/corpus.jsonl" docs "$work/docs.jsonl"
python3 bench/make_facts.py "$dataset/corpus.jsonl" sentences 10000 "$work/facts10k.jsonl"

# Times are bash's own clock, "${EPOCHREALTIME/,/.}" (seconds, a point
# whatever the locale): `$(date ...)` would put a subshell and a `date`
# process, about a millisecond, into every interval it closes.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
p95() { sort -g | awk '{a[NR]=$1} END {print a[int(NR*0.95)]}'; }
elapsed() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { print (b - a) * s }'; }

import_times=()
for _ in $(seq "$runs"); do
  rm -f "$work"/import.db*
  t0="${EPOCHREALTIME/,/.}"
  ENGRAM_EMBED_PROVIDER=null "$engram" --db "$work/import.db" import "$work/docs.jsonl" >/dev/null
  t1="${EPOCHREALTIME/,/.}"
  import_times+=("$(elapsed "$t0" "$t1" 1)")
done
import_median=$(printf '%s\n' "${import_times[@]}" | median)
docs=$(wc -l < "$work/docs.jsonl")

facts=$(wc -l < "$work/facts10k.jsonl")
t0="${EPOCHREALTIME/,/.}"
"$engram" --db "$work/search.db" import "$work/facts10k.jsonl" > "$work/embed_import.txt"
t1="${EPOCHREALTIME/,/.}"
embed_import=$(elapsed "$t0" "$t1" 1)
# "imported N new, M merged, embedded E": every new fact must be embedded.
added=$(sed -n 's/^imported \([0-9]*\) new.*/\1/p' "$work/embed_import.txt")
embedded=$(sed -n 's/.*, embedded \([0-9]*\).*/\1/p' "$work/embed_import.txt")
if [ -z "$added" ] || [ "${embedded:-0}" != "$added" ]; then
  echo "bench: the import did not embed every fact: $(cat "$work/embed_import.txt")" >&2
  exit 1
fi

queries=()
while IFS= read -r q; do queries+=("$q"); done < <(first_queries "$dataset/queries.jsonl" 20)
if ! "$engram" --db "$work/search.db" search "${queries[0]}" --json --no-record |
  python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["semantic"] else 1)'; then
  echo "bench: the default search did not use the semantic signal" >&2
  exit 1
fi
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
start_server "$work/serve.log" "$engram" --db "$work/search.db" serve --port 0 || exit 1
# Reads "MODE<TAB>QUERY" lines, asks the server, prints the milliseconds.
coproc ASK { python3 -u -c '
import http.client, json, sys, time
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for line in sys.stdin:
    mode, query = line.rstrip("\n").split("\t", 1)
    body = json.dumps({"query": query, "k": 10, "mode": mode})
    t0 = time.perf_counter()
    conn.request("POST", "/v1/search", body, {"Content-Type": "application/json"})
    response = conn.getresponse()
    answer = response.read()
    ms = (time.perf_counter() - t0) * 1000
    if response.status != 200:
        sys.exit(f"bench: the server answered {response.status}: {answer[:200]!r}")
    print(f"{ms:.3f}")' "$port"; }
ask() {
  printf '%s\t%s\n' "$1" "$2" >&"${ASK[1]}"
  local ms
  read -r ms <&"${ASK[0]}" || { echo "bench: no answer from the server" >&2; exit 1; }
  echo "$ms"
}
search_times=()
lexical_times=()
server_times=()
server_lexical_times=()
for _ in $(seq "$runs"); do
  for q in "${queries[@]}"; do
    t0="${EPOCHREALTIME/,/.}"
    "$engram" --db "$work/search.db" search "$q" -k 10 >/dev/null
    t1="${EPOCHREALTIME/,/.}"
    "$engram" --db "$work/search.db" search "$q" -k 10 --mode lexical >/dev/null
    t2="${EPOCHREALTIME/,/.}"
    search_times+=("$(elapsed "$t0" "$t1" 1000)")
    lexical_times+=("$(elapsed "$t1" "$t2" 1000)")
  done
  # The server's turn after each round: the one-shot searches recorded
  # accesses, which the server sees once, as it would beside other writers.
  for q in "${queries[@]}"; do
    server_times+=("$(ask blended "$q")")
    server_lexical_times+=("$(ask lexical "$q")")
  done
done
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
search_median=$(printf '%s\n' "${search_times[@]}" | median)
search_p95=$(printf '%s\n' "${search_times[@]}" | p95)
lexical_median=$(printf '%s\n' "${lexical_times[@]}" | median)
lexical_p95=$(printf '%s\n' "${lexical_times[@]}" | p95)
server_median=$(printf '%s\n' "${server_times[@]}" | median)
server_p95=$(printf '%s\n' "${server_times[@]}" | p95)
server_lexical_median=$(printf '%s\n' "${server_lexical_times[@]}" | median)
server_lexical_p95=$(printf '%s\n' "${server_lexical_times[@]}" | p95)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '{"import_docs": %d, "import_seconds_median": %.3f, "import_runs": %d, "import_embed_provider": "null", ' \
  "$docs" "$import_median" "$runs"
printf '"embed_import_facts": %d, "embed_import_seconds": %.1f, "embed_import_facts_per_s": %.0f, ' \
  "$facts" "$embed_import" "$(awk -v n="$facts" -v s="$embed_import" 'BEGIN { print n / s }')"
printf '"search_facts": %d, "search_embed_provider": "local", "search_ms_median": %.1f, "search_ms_p95": %.1f, "search_runs": %d, ' \
  "$facts" "$search_median" "$search_p95" "${#search_times[@]}"
printf '"semantic_search_ms_median": %.1f, "semantic_search_ms_p95": %.1f, ' "$search_median" "$search_p95"
printf '"lexical_search_ms_median": %.1f, "lexical_search_ms_p95": %.1f, ' "$lexical_median" "$lexical_p95"
printf '"server_search_ms_median": %.2f, "server_search_ms_p95": %.2f, ' "$server_median" "$server_p95"
printf '"server_lexical_search_ms_median": %.2f, "server_lexical_search_ms_p95": %.2f, ' \
  "$server_lexical_median" "$server_lexical_p95"
printf '"oneshot_to_server_ratio": %s, "lexical_oneshot_to_server_ratio": %s, ' \
  "$(ratio "$search_median" "$server_median")" "$(ratio "$lexical_median" "$server_lexical_median")"
printf '"load_average": "%s"}\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
