#!/usr/bin/env bash
# The SQLite and PostgreSQL stores side by side, in one run on loopback:
#  - quality: `engram eval --compare lexical,blended` of each dataset found
#    under DATASETS (../shared/datasets) on a SQLite file and on a fresh
#    PostgreSQL database, with the embedded model; nDCG@10 of each, and how
#    many queries' nDCG@10 differ between the stores (to 1e-12);
#  - speed: a store of 10,000 scifact sentences (bench/make_facts.py) in
#    each, imported and embedded; one `engram serve` on each, then ROUNDS
#    (5) rounds alternating between them, each a serial phase of SEARCHES
#    (100) blended searches from one client (bench/load_client.cc): the CPU
#    time per search of the engram server (user + system from /proc) and,
#    for PostgreSQL, of the database's processes too (the postmaster and
#    its children: the connections' backends do the SQL work). Medians
#    over the rounds.
# The PostgreSQL cluster is a throw-away one (scripts/pg_cluster.sh: a Unix
# socket, no TCP, fsync and synchronous commit off), stopped at the end.
# Writes bench/RESULTS-stores.md and prints the JSON it is made from.
#
#   bench/store_compare.sh [BUILD_DIR]
#
# Needs the engram, load_client and use_lite_convert targets built, python3,
# PostgreSQL (scripts/setup.sh installs it) and the datasets; takes about
# 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
build=$(realpath "${1:-./build}")
engram=$build/engram
client=$build/bench/load_client
datasets=${DATASETS:-../shared/datasets}
rounds=${ROUNDS:-5}
searches=${SEARCHES:-100}
require_dataset store_compare "$datasets/scifact" || exit 1
require_built store_compare "$build" engram load_client use_lite_convert || exit 1

work=$(mktemp -d)
chmod 755 "$work"
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  scripts/pg_cluster.sh stop "$work/pg.state" || true
  rm -rf "$work"
}
trap cleanup EXIT
export ENGRAM_CONFIG="$work/none.toml"
export ENGRAM_HOME="$work/home"
unset ENGRAM_EMBED_PROVIDER ENGRAM_EMBED_MODELS_DIR ENGRAM_STORE_URL
install_model "$build/use_lite_convert" "$ENGRAM_HOME/models" || exit 1
scripts/pg_cluster.sh start "$work/pg.state"
cluster_url=$(sed -n 1p "$work/pg.state")
cluster_dir=$(sed -n 2p "$work/pg.state")
# new_database NAME: creates it and prints its URL.
new_database() {
  psql -q "$cluster_url" -c "CREATE DATABASE $1" > /dev/null
  echo "$cluster_url" | sed "s|///postgres?|///$1?|"
}

# Quality: each dataset on both stores.
: > "$work/quality.txt"
for name in scifact cranfield locomo-dev locomo-dev-turns updates-dev; do
  [ -f "$datasets/$name/corpus.jsonl" ] || { echo "store_compare: no $name, skipped" >&2; continue; }
  echo "store_compare: eval $name on SQLite, then PostgreSQL" >&2
  "$engram" eval "$datasets/$name" --compare lexical,blended --json > "$work/$name.sqlite.json"
  url=$(new_database "eval_${name//-/_}")
  ENGRAM_STORE_URL=$url "$engram" eval "$datasets/$name" --compare lexical,blended --json \
    > "$work/$name.postgres.json"
  echo "$name" >> "$work/quality.txt"
done

# Speed: 10,000 facts in each store, a server on each.
python3 bench/make_facts.py "$datasets/scifact/corpus.jsonl" sentences 10000 "$work/facts.jsonl"
first_queries "$datasets/scifact/queries.jsonl" > "$work/queries.txt"
pg_url=$(new_database speed)
echo "store_compare: importing 10,000 facts into SQLite, then PostgreSQL" >&2
"$engram" --db "$work/speed.db" import "$work/facts.jsonl" > /dev/null
ENGRAM_STORE_URL=$pg_url "$engram" import "$work/facts.jsonl" > /dev/null
start_server "$work/sqlite.log" "$engram" --db "$work/speed.db" serve --port 0
sqlite_pid=$server_pid sqlite_port=$port
servers+=("$sqlite_pid")
start_server "$work/postgres.log" env ENGRAM_STORE_URL="$pg_url" "$engram" serve --port 0
postgres_pid=$server_pid postgres_port=$port
servers+=("$postgres_pid")
postmaster=$(head -n 1 "$cluster_dir/data/postmaster.pid")

# cpu PID...: the CPU seconds (user + system) of those processes so far.
cpu() {
  local hz total=0
  hz=$(getconf CLK_TCK)
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    total=$(awk -v t="$total" -v hz="$hz" '{ print t + ($14 + $15) / hz }' "/proc/$pid/stat")
  done
  echo "$total"
}
database_pids() { echo "$postmaster" $(pgrep -P "$postmaster" || true); }
# phase STORE PORT ROUND: one serial phase; appends "STORE engram_s database_s requests".
phase() {
  local store=$1 port=$2 pid=$3 before after db_before db_after
  before=$(cpu "$pid")
  db_before=$(cpu $(database_pids))
  "$client" --port "$port" --queries "$work/queries.txt" --clients 1 --rate 0 \
    --searches "$searches" --adds 0 --facts /dev/null > "$work/phase.json"
  after=$(cpu "$pid")
  db_after=$(cpu $(database_pids))
  python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
print(sys.argv[2], float(sys.argv[4]) - float(sys.argv[3]), float(sys.argv[6]) - float(sys.argv[5]),
      p["requests"], p.get("errors", 0))' "$work/phase.json" "$store" "$before" "$after" \
    "$db_before" "$db_after" >> "$work/speed.txt"
}
: > "$work/speed.txt"
for round in $(seq 1 "$rounds"); do
  echo "store_compare: round $round of $rounds" >&2
  phase sqlite "$sqlite_port" "$sqlite_pid"
  phase postgres "$postgres_port" "$postgres_pid"
done

python3 - "$work" "$(git describe --always --dirty)" "$(nproc)" "$searches" "$rounds" \
  > bench/RESULTS-stores.md <<'PY'
import json, os, statistics, sys
work, commit, cores, searches, rounds = sys.argv[1:6]
print("# SQLite and PostgreSQL stores, side by side\n")
print(f"From one run of `bench/store_compare.sh` at {commit}, on {cores} cores, loopback only. "
      "The defaults are the release defaults, chosen on all dev datasets together; nothing "
      "here was tuned on these figures. PostgreSQL is a throw-away cluster on a Unix socket "
      "with fsync and synchronous commit off.\n")
print("## Quality: the same nDCG@10 on both stores\n")
print("`engram eval DATASET --compare lexical,blended` with the embedded model, once on a "
      "SQLite file and once on an empty PostgreSQL database.\n")
print("| dataset | mode | SQLite | PostgreSQL | queries whose nDCG@10 differs | index s SQLite / PostgreSQL |")
print("|---|---|---|---|---|---|")
for name in open(os.path.join(work, "quality.txt")).read().split():
    a = json.load(open(os.path.join(work, name + ".sqlite.json")))
    b = json.load(open(os.path.join(work, name + ".postgres.json")))
    for mode in sorted(a["per_query_ndcg10"]):
        pa, pb = a["per_query_ndcg10"][mode], b["per_query_ndcg10"][mode]
        differ = sum(1 for q in pa if q not in pb or abs(pa[q] - pb[q]) > 1e-12)
        differ += sum(1 for q in pb if q not in pa)
        print(f"| {name} | {mode} | {statistics.fmean(pa.values()):.4f} | "
              f"{statistics.fmean(pb.values()):.4f} | {differ} of {len(pa)} | "
              f"{a['index_seconds']:.1f} / {b['index_seconds']:.1f} |")
rows = [line.split() for line in open(os.path.join(work, "speed.txt"))]
def per_search(store, column):
    return [1000 * float(r[column]) / max(1, int(r[3])) for r in rows if r[0] == store]
sqlite = per_search("sqlite", 1)
pg_engram = per_search("postgres", 1)
pg_db = per_search("postgres", 2)
pg_total = [x + y for x, y in zip(pg_engram, pg_db)]
errors = sum(int(r[4]) for r in rows)
print("\n## CPU per search at 10,000 facts\n")
print(f"10,000 scifact sentences, imported and embedded with the local model; one `engram serve` "
      f"on each store; {rounds} rounds alternating between them, each {searches} blended "
      f"searches (k 10) from one client, one after another. CPU per search is the process's "
      f"user + system time over the phase divided by its searches (a mean); the table gives the "
      f"median over the rounds. {errors} errors.\n")
m = statistics.median
print("| store | engram server ms | database ms | total ms | total / SQLite |")
print("|---|---|---|---|---|")
print(f"| SQLite (in process) | {m(sqlite):.2f} | — | {m(sqlite):.2f} | 1.00 |")
print(f"| PostgreSQL | {m(pg_engram):.2f} | {m(pg_db):.2f} | {m(pg_total):.2f} | "
      f"{m(pg_total) / m(sqlite):.2f} |")
json.dump({"speed": rows}, sys.stderr)
PY
cat bench/RESULTS-stores.md
