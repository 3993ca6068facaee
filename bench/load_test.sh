#!/usr/bin/env bash
# Load test of `engram serve` on loopback, with the embedded model:
#  - a store of 10,000 scifact sentences (bench/make_facts.py), imported
#    and embedded before the server starts;
#  - phase "offered", once per rate of RATES (default "30 35"): CLIENTS (50)
#    keep-alive clients send SEARCHES (10,000) searches and ADDS (1,000)
#    new facts interleaved, at that many requests per second in all, an
#    open loop whose latencies count from when each request was due
#    (bench/load_client.cc);
#  - phase "capacity": the same clients with no pacing (a closed loop) for
#    CAP_SEARCHES (2,000) searches and CAP_ADDS (200) adds: the most the
#    server does on this machine, and the latency when saturated;
#  - after each phase, every acknowledged add is read back and the store's
#    fact count checked; then SIGTERM, and the server must exit cleanly.
# Bounded in count and in time (MAX_SECONDS per phase, 600). Writes
# bench/RESULTS-load.md and prints the JSON of every phase. Needs
# ../shared/datasets/scifact and python3; takes about 5 minutes per rate.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-./build}")
engram=$build/engram
client=$build/bench/load_client
dataset=${DATASETS:-../shared/datasets}/scifact
clients=${CLIENTS:-50}
rates=${RATES:-30 35}
searches=${SEARCHES:-10000}
adds=${ADDS:-1000}
cap_searches=${CAP_SEARCHES:-2000}
cap_adds=${CAP_ADDS:-200}
max_seconds=${MAX_SECONDS:-600}
if [ ! -f "$dataset/corpus.jsonl" ]; then
  echo "load_test: $dataset/corpus.jsonl is missing; the load test needs the scifact dataset" >&2
  exit 1
fi
for tool in "$engram" "$client" "$build/use_lite_convert"; do
  if [ ! -x "$tool" ]; then
    echo "load_test: $tool is missing; build the engram, load_client and use_lite_convert targets" >&2
    exit 1
  fi
done

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export ENGRAM_CONFIG="$work/none.toml"
export ENGRAM_HOME="$work/home"
unset ENGRAM_EMBED_PROVIDER ENGRAM_EMBED_MODELS_DIR
scripts/install_model.sh "$build/use_lite_convert" "$ENGRAM_HOME/models" 2> "$work/install.log" ||
  { cat "$work/install.log" >&2; exit 1; }

# Every phase adds facts no other phase has, so each add creates one.
set -- $rates
total=$((10000 + adds * $# + cap_adds))
python3 bench/make_facts.py "$dataset/corpus.jsonl" sentences "$total" "$work/all.jsonl"
head -n 10000 "$work/all.jsonl" > "$work/store.jsonl"
first=10001
for rate in $rates; do
  sed -n "${first},$((first + adds - 1))p" "$work/all.jsonl" > "$work/adds-$rate.jsonl"
  first=$((first + adds))
done
tail -n "$cap_adds" "$work/all.jsonl" > "$work/cap_adds.jsonl"
python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    print(json.loads(line)["text"])' "$dataset/queries.jsonl" > "$work/queries.txt"
echo "load_test: importing 10,000 facts with the local model" >&2
"$engram" import "$work/store.jsonl" > /dev/null

"$engram" serve --port 0 --threads "$((clients + 8))" 2> "$work/serve.log" &
server_pid=$!
for _ in $(seq 1 600); do
  grep -q "engram: serving http://" "$work/serve.log" && break
  sleep 0.1
done
port=$(grep -o "serving http://127.0.0.1:[0-9]*" "$work/serve.log" | grep -o "[0-9]*$")
[ -n "$port" ] || { cat "$work/serve.log" >&2; exit 1; }

status=0
for rate in $rates; do
  echo "load_test: offered load, $rate requests/s, $clients clients" >&2
  "$client" --port "$port" --clients "$clients" --rate "$rate" --searches "$searches" \
    --adds "$adds" --queries "$work/queries.txt" --facts "$work/adds-$rate.jsonl" \
    --max-seconds "$max_seconds" > "$work/offered-$rate.json" || status=1
done
echo "load_test: capacity, $clients clients, no pacing" >&2
"$client" --port "$port" --clients "$clients" --rate 0 --searches "$cap_searches" \
  --adds "$cap_adds" --queries "$work/queries.txt" --facts "$work/cap_adds.jsonl" \
  --max-seconds "$max_seconds" > "$work/capacity.json" || status=1
kill -TERM "$server_pid"
wait "$server_pid" || { echo "load_test: the server did not exit cleanly" >&2; status=1; }
server_pid=""
grep -q "engram: stopped" "$work/serve.log" || status=1
# What the server acknowledged is in the file once it has stopped.
stored=$("$engram" export | wc -l)
expected=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts_after"])' \
  "$work/capacity.json")
[ "$stored" -eq "$expected" ] || { echo "load_test: $stored facts in the file, $expected expected" >&2; status=1; }

python3 - "$work" "$(git describe --always --dirty)" "$(nproc)" "$stored" $rates \
  > bench/RESULTS-load.md <<'PY'
import json, os, sys
work, commit, cores, stored = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
phases = [("offered", json.load(open(os.path.join(work, f"offered-{rate}.json"))))
          for rate in sys.argv[5:]]
phases.append(("capacity", json.load(open(os.path.join(work, "capacity.json")))))
print(f"Written by `bench/load_test.sh` at commit {commit} on {cores} cores: `engram serve` with "
      "the local model on a 10,000-fact store (scifact sentences), queries from scifact, client "
      "and server on the same machine over loopback. Latencies in ms; in the offered phase they "
      "count from when each request was due.\n")
print("| phase | clients | offered req/s | requests | seconds | throughput req/s | errors "
      "| search p50 / p95 / p99 | add p50 / p95 / p99 | adds acknowledged | facts missing "
      "| facts before + created = after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for name, p in phases:
    s, a = p["search"], p["add"]
    offered = "unpaced" if p["offered_rate"] == 0 else f"{p['offered_rate']:g}"
    print(f"| {name} | {p['clients']} | {offered} | {p['requests']:,} | {p['seconds']:.1f} "
          f"| {p['throughput_rps']:.1f} | {p['errors']} "
          f"| {s['p50_ms']:.1f} / {s['p95_ms']:.1f} / {s['p99_ms']:.1f} "
          f"| {a['p50_ms']:.1f} / {a['p95_ms']:.1f} / {a['p99_ms']:.1f} "
          f"| {p['acknowledged_adds']:,} | {p['missing_facts']} "
          f"| {p['facts_before']:,} + {p['created']:,} = {p['facts_after']:,} "
          f"{'ok' if p['count_ok'] else 'WRONG'} |")
print(f"\nAfter SIGTERM the server exited cleanly and the database file held {stored:,} facts "
      "(`engram export`), the count the last phase ended with.")
PY
cat "$work"/offered-*.json "$work/capacity.json"
exit "$status"

