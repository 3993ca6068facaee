#!/usr/bin/env bash
# Cluster load test: three `engram serve` processes on one PostgreSQL, 50
# clients, a server SIGKILLed and restarted, PostgreSQL crashed and
# restarted, and afterwards an audit of everything acknowledged
# (bench/cluster_load.py says what it does and checks).
#
#   bench/cluster_load.sh [BUILD_DIR]     (default ./build)
#
# Makes a throw-away durable PostgreSQL cluster listening on a Unix socket
# only (scripts/pg_cluster.sh start --durable), a database in it, and
# SCOPES (16) scopes of PER_SCOPE (100) scifact sentences each
# (bench/make_facts.py), imported and embedded before the servers start;
# the clients add further sentences. Everything runs on loopback, bounded
# by RUN_SECONDS (90) of load. Writes bench/RESULTS-cluster.md and prints
# the JSON report; exits 1 when the audit fails. Needs
# ../shared/datasets/scifact, python3 and PostgreSQL's server and psql
# (make deps installs them); takes about 3 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
build=$(realpath "${1:-./build}")
engram=$build/engram
dataset=${DATASETS:-../shared/datasets}/scifact
scopes=${SCOPES:-16}
per_scope=${PER_SCOPE:-100}
fresh=${FRESH_FACTS:-4000}
require_dataset cluster_load "$dataset" || exit 1
require_built cluster_load "$build" engram use_lite_convert || exit 1
command -v psql > /dev/null || { echo "cluster_load: psql is missing (apt-get install postgresql-client)" >&2; exit 1; }

work=$(mktemp -d)
state=$work/pg.state
cleanup() {
  scripts/pg_cluster.sh stop "$state" || true
  rm -rf "$work"
}
trap cleanup EXIT
export ENGRAM_CONFIG="$work/none.toml"
unset ENGRAM_EMBED_PROVIDER ENGRAM_STORE_URL ENGRAM_SERVER_TOKEN
install_model "$build/use_lite_convert" "$work/models" || exit 1
export ENGRAM_EMBED_MODELS_DIR="$work/models"

scripts/pg_cluster.sh start "$state" --durable
socket_dir=$(sed -n 2p "$state")
psql "host=$socket_dir user=engram dbname=postgres" -Xqc "CREATE DATABASE cluster"
url="postgresql:///cluster?host=$socket_dir&user=engram"

seeded=$((scopes * per_scope))
python3 bench/make_facts.py "$dataset/corpus.jsonl" sentences $((seeded + fresh)) "$work/all.jsonl"
python3 - "$work/all.jsonl" "$seeded" "$scopes" "$work/seed.jsonl" "$work/fresh.jsonl" <<'PY'
import json, sys
source, seeded, scopes, seed_path, fresh_path = sys.argv[1:6]
with open(source) as src, open(seed_path, "w") as seed, open(fresh_path, "w") as fresh:
    for i, line in enumerate(src):
        if i < int(seeded):
            row = json.loads(line)
            row["scope"] = f"tenant-{i % int(scopes):02d}"
            seed.write(json.dumps(row) + "\n")
        else:
            fresh.write(line)
PY
ENGRAM_STORE_URL=$url ENGRAM_HOME="$work/import-home" "$engram" import "$work/seed.jsonl" > /dev/null

python3 bench/cluster_load.py "$engram" "$state" "$url" "$scopes" "$work/fresh.jsonl" "$work"
