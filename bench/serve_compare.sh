#!/usr/bin/env bash
# Two builds' servers side by side: a 10,000-fact store of scifact
# sentences embedded with the local model (as bench/load_test.sh makes it,
# imported by OLD), one `engram serve` of each build on its own copy of the
# store, each warmed with 50 searches; then ROUNDS (10) rounds in which
# each server answers PER_ROUND (150) searches (scifact's claims in order,
# k 10, MODE blended or lexical) from one kept-alive loopback connection,
# the two taking turns and the first of each round alternating, so that
# load from other processes falls on both alike; half the rounds from one
# client process, half from a second that names the builds in the other
# order (below). The server's CPU time
# (user + system of the process, every thread, from /proc) over its turns,
# divided by its searches, is a mean per search; wall is the client's, from
# sending a request to reading the whole answer. Prints one JSON object per
# build.
#
#   bench/serve_compare.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# Each build dir holds engram, engram-serve and use_lite_convert (each
# build's model is converted by its own converter). Needs
# ../shared/datasets/scifact and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
old=$(realpath "${1:?usage: bench/serve_compare.sh OLD_BUILD_DIR NEW_BUILD_DIR}")
new=$(realpath "${2:?usage: bench/serve_compare.sh OLD_BUILD_DIR NEW_BUILD_DIR}")
rounds=${ROUNDS:-10}
per_round=${PER_ROUND:-150}
mode=${MODE:-blended}
dataset=${DATASETS:-../shared/datasets}/scifact
require_dataset serve_compare "$dataset" || exit 1
for build in "$old" "$new"; do
  require_built serve_compare "$build" engram engram-serve use_lite_convert || exit 1
done

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export ENGRAM_CONFIG="$work/none.toml"
export HOME="$work/user"
unset ENGRAM_EMBED_PROVIDER ENGRAM_EMBED_MODELS_DIR XDG_CACHE_HOME
compare_homes "$old/engram" "$new/engram" "$dataset" || exit 1
first_queries "$dataset/queries.jsonl" > "$work/queries.txt"

ports=()
for side in old new; do
  build=$old
  [ "$side" = new ] && build=$new
  ENGRAM_HOME="$work/$side" start_server "$work/$side.log" \
    "$build/engram" --db "$work/$side/store.db" serve --port 0 || exit 1
  pids+=("$server_pid")
  ports+=("$port")
done

# One client: the two servers in the order given, ROUNDS rounds; prints
# each build's CPU seconds, wall seconds and searches as one JSON object.
cat > "$work/client.py" <<'EOF'
import http.client, json, os, sys, time
queries = [q for q in open(sys.argv[1], encoding="utf-8").read().splitlines() if q]
mode, rounds, per_round = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
servers = [(sys.argv[i], int(sys.argv[i + 1]), int(sys.argv[i + 2])) for i in (5, 8)]
tick = os.sysconf("SC_CLK_TCK")

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

connections = {name: http.client.HTTPConnection("127.0.0.1", port) for name, _, port in servers}

def search(name, query):
    body = {"query": query, "k": 10}
    if mode != "blended":
        body["mode"] = mode
    connection = connections[name]
    connection.request("POST", "/v1/search", json.dumps(body),
                       {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"serve_compare: {name} answered {response.status}")

totals = {name: [0.0, 0.0, 0] for name, _, _ in servers}
for name, _, _ in servers:
    for query in queries[:50]:
        search(name, query)
for round_ in range(rounds):
    for name, pid, _ in (servers if round_ % 2 == 0 else servers[::-1]):
        cpu_before, wall_before = cpu_seconds(pid), time.perf_counter()
        for i in range(per_round):
            search(name, queries[(round_ * per_round + i) % len(queries)])
        totals[name][0] += cpu_seconds(pid) - cpu_before
        totals[name][1] += time.perf_counter() - wall_before
        totals[name][2] += per_round
print(json.dumps(totals))
EOF
# Two clients, one after the other, each with half the rounds and the
# builds in the other order: one client measured the server it names
# first 3-10% slower with the same build on both sides, for no cause found,
# and the second half cancels that.
old_args=(old "${pids[0]}" "${ports[0]}")
new_args=(new "${pids[1]}" "${ports[1]}")
half=$(((rounds + 1) / 2))
python3 "$work/client.py" "$work/queries.txt" "$mode" "$half" "$per_round" \
  "${old_args[@]}" "${new_args[@]}" > "$work/first.json"
python3 "$work/client.py" "$work/queries.txt" "$mode" "$half" "$per_round" \
  "${new_args[@]}" "${old_args[@]}" > "$work/second.json"
python3 - "$mode" "$work/first.json" "$work/second.json" <<'EOF'
import json, sys
mode = sys.argv[1]
halves = [json.load(open(path)) for path in sys.argv[2:]]
for name in ("old", "new"):
    cpu, wall, count = (sum(h[name][i] for h in halves) for i in range(3))
    print(json.dumps({"build": name, "mode": mode, "searches": count,
                      "server_cpu_ms_per_search": round(1000 * cpu / count, 3),
                      "wall_ms_per_search": round(1000 * wall / count, 3),
                      "server_cpu_ms_per_search_by_half": [
                          round(1000 * h[name][0] / h[name][2], 3) for h in halves]}))
EOF
