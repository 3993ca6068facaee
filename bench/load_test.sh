#!/usr/bin/env bash
# Load test of `engram serve` on loopback, with the embedded model:
#  - a store of 10,000 scifact sentences (bench/make_facts.py), imported
#    and embedded before the server starts;
#  - phase "offered", once per rate of RATES (default "30 35"): CLIENTS (50)
#    keep-alive clients send SEARCHES (10,000) searches and ADDS (1,000)
#    new facts interleaved, at that many requests per second in all, an
#    open loop whose latencies count from when each request was due
#    (bench/load_client.cc);
#  - phase "serial" first: one client, SERIAL_SEARCHES (300) searches one
#    after another and no adds: the server's own CPU time per search with
#    nothing else running, twice: utime + stime of the process from /proc,
#    over the phase, divided by its requests (a mean, which the slow tail
#    lifts above the median, and which counts what the server does between
#    requests); and per search, the server process's CPU clock read before
#    sending it and after its answer (load_client --server-pid), whose
#    median the report gives;
#  - phase "capacity": the same clients with no pacing (a closed loop) for
#    CAP_SEARCHES (2,000) searches and CAP_ADDS (200) adds: the most the
#    server does on this machine, and the latency when saturated;
#  - after each phase, every acknowledged add is read back and the store's
#    fact count checked; then SIGTERM, and the server must exit cleanly.
# Bounded in count and in time (MAX_SECONDS per phase, 600). Writes
# REPORT (default bench/RESULTS-load.md) and prints the JSON of every phase,
# one per line. Needs ../shared/datasets/scifact and python3; takes about 5
# minutes per rate.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
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
serial_searches=${SERIAL_SEARCHES:-300}
max_seconds=${MAX_SECONDS:-600}
report=${REPORT:-bench/RESULTS-load.md}
require_dataset load_test "$dataset" || exit 1
require_built load_test "$build" engram load_client use_lite_convert || exit 1

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
install_model "$build/use_lite_convert" "$ENGRAM_HOME/models" || exit 1

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
first_queries "$dataset/queries.jsonl" > "$work/queries.txt"
echo "load_test: importing 10,000 facts with the local model" >&2
"$engram" import "$work/store.jsonl" > /dev/null

start_server "$work/serve.log" "$engram" serve --port 0 --threads "$((clients + 8))" || exit 1

# The server's CPU seconds so far (user + system, all its threads).
server_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$server_pid/stat"
}
# run_phase NAME CLIENT-ARGS...: one load_client run, its JSON in
# $work/NAME.json with the server's CPU over it added.
status=0
run_phase() {
  local name=$1 before after
  shift
  before=$(server_cpu)
  "$client" --port "$port" --queries "$work/queries.txt" --max-seconds "$max_seconds" "$@" \
    > "$work/$name.raw.json" || status=1
  after=$(server_cpu)
  python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
p["server_cpu_s"] = float(sys.argv[3]) - float(sys.argv[2])
json.dump(p, open(sys.argv[4], "w"))' "$work/$name.raw.json" "$before" "$after" "$work/$name.json"
}
echo "load_test: serial, one client, $serial_searches searches" >&2
: > "$work/no_adds.jsonl"
run_phase serial --clients 1 --rate 0 --searches "$serial_searches" --adds 0 \
  --facts "$work/no_adds.jsonl" --server-pid "$server_pid"
for rate in $rates; do
  echo "load_test: offered load, $rate requests/s, $clients clients" >&2
  run_phase "offered-$rate" --clients "$clients" --rate "$rate" --searches "$searches" \
    --adds "$adds" --facts "$work/adds-$rate.jsonl"
done
echo "load_test: capacity, $clients clients, no pacing" >&2
run_phase capacity --clients "$clients" --rate 0 --searches "$cap_searches" \
  --adds "$cap_adds" --facts "$work/cap_adds.jsonl"
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
  > "$report" <<'PY'
import json, os, sys
work, commit, cores, stored = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
phases = [("serial", json.load(open(os.path.join(work, "serial.json"))))]
phases += [("offered", json.load(open(os.path.join(work, f"offered-{rate}.json"))))
           for rate in sys.argv[5:]]
phases.append(("capacity", json.load(open(os.path.join(work, "capacity.json")))))
print(f"Written by `bench/load_test.sh` at commit {commit} on {cores} cores: `engram serve` with "
      "the local model on a 10,000-fact store (scifact sentences), queries from scifact, client "
      "and server on the same machine over loopback. Latencies in ms; in the offered phase they "
      "count from when each request was due. Server CPU is the process's user + system time "
      "over the phase (every thread: HTTP, search, embedding, writes, access recording) divided "
      "by the requests answered, a mean.\n")
print("| phase | clients | offered req/s | requests | seconds | throughput req/s | errors "
      "| server CPU ms / request | search p50 / p95 / p99 | add p50 / p95 / p99 "
      "| adds acknowledged | facts missing | facts before + created = after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for name, p in phases:
    s, a = p["search"], p["add"]
    offered = "unpaced" if p["offered_rate"] == 0 else f"{p['offered_rate']:g}"
    print(f"| {name} | {p['clients']} | {offered} | {p['requests']:,} | {p['seconds']:.1f} "
          f"| {p['throughput_rps']:.1f} | {p['errors']} "
          f"| {1000 * p['server_cpu_s'] / max(1, p['requests']):.2f} "
          f"| {s['p50_ms']:.1f} / {s['p95_ms']:.1f} / {s['p99_ms']:.1f} "
          f"| {a['p50_ms']:.1f} / {a['p95_ms']:.1f} / {a['p99_ms']:.1f} "
          f"| {p['acknowledged_adds']:,} | {p['missing_facts']} "
          f"| {p['facts_before']:,} + {p['created']:,} = {p['facts_after']:,} "
          f"{'ok' if p['count_ok'] else 'WRONG'} |")
serial = phases[0][1]["search"]["server_cpu"]
print(f"\nServer CPU per search in the serial phase, from the server process's CPU clock read "
      f"before each request and after its answer (`load_client --server-pid`): median "
      f"{serial['p50_ms']:.2f} ms, mean {serial['mean_ms']:.2f}, p95 {serial['p95_ms']:.2f} over "
      f"{serial['count']} searches. The table's figure divides the whole phase's CPU by its "
      "requests, so it also counts what the server does between them.")
print(f"\nAfter SIGTERM the server exited cleanly and the database file held {stored:,} facts "
      "(`engram export`), the count the last phase ended with.")
PY
for phase in serial $(printf 'offered-%s ' $rates) capacity; do
  cat "$work/$phase.json"
  echo
done
exit "$status"

