#!/usr/bin/env bash
# engram against the local libraries its users would otherwise pick, on one
# dataset, with the same vectors (the embedded model's), scored by one
# scorer. Prints a Markdown report headed by the command, the commit and the
# machine.
#
#   bench/peers/run.sh DATASET [ROUNDS]
#
# DATASET is a directory of ../shared/datasets (or a path to one); ROUNDS
# (default 3) is how many times every query is asked of every system. With
# PEERS_SCORES set, peer_tool score's table (run, nDCG@10, recall@100, W, L,
# T) is also copied there.
# Needs a Release build with the engram, peer_tool and use_lite_convert
# targets in $BUILD_DIR (default ./build; `make bench` builds them), Node
# with npm (bench/peers/setup.sh installs the libraries), and python3.
#
# What runs (all on loopback, bounded by the dataset's queries and ROUNDS):
#  1. peer_tool data: engram indexes the dataset as `engram eval` does and
#     writes every row and query with engram's vectors;
#  2. `engram serve` on that store, on a free loopback port;
#  3. per round, in alternating order: peers.mjs (SQLite FTS5, LanceDB,
#     Orama, usearch and engram over HTTP, interleaved query by query), then
#     peer_tool search (engram in process through the library, per mode);
#  4. peer_tool score: nDCG@10 and recall@100 of every system's round-1
#     run with engram's trec_eval metrics, and per-query wins, losses and
#     ties against engram blended (in process).
# Latency: per query, the median over rounds; the table shows the median
# of those over queries, and the ratio to engram in process in the same
# mode family. CPU: mean per query (the server's own for engram over HTTP,
# in 10 ms clock ticks summed over the run).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh
dataset=${1:?usage: bench/peers/run.sh DATASET [ROUNDS]}
rounds=${2:-3}
[ -d "$dataset" ] || dataset=${DATASETS:-../shared/datasets}/$dataset
if [ ! -f "$dataset/corpus.jsonl" ]; then
  echo "peers: $dataset/corpus.jsonl is missing; the comparison needs a dataset of ../shared/datasets" >&2
  exit 1
fi
build=$(realpath "${BUILD_DIR:-./build}")
for tool in "$build/engram" "$build/bench/peer_tool" "$build/use_lite_convert"; do
  if [ ! -x "$tool" ]; then
    echo "peers: $tool is missing; build the engram, peer_tool and use_lite_convert targets" >&2
    exit 1
  fi
done
export PEERS_MODULES
# LanceDB's deprecation notices, once per search, would bury the progress.
export RUST_LOG=${RUST_LOG:-error}
PEERS_MODULES=$(bench/peers/setup.sh)/node_modules

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

echo "peers: indexing $(basename "$dataset") with engram" >&2
"$build/bench/peer_tool" data "$dataset" "$work"

start_server "$work/serve.log" "$build/engram" --db "$work/engram.db" serve --port 0 || exit 1

in_process() {
  local round=$1
  mkdir -p "$work/runs" "$work/times"
  for mode in lexical semantic blended; do
    "$build/bench/peer_tool" search "$work" "$mode" "$work/engram-$mode.run"
    mv "$work/engram-$mode.run.times" "$work/times/engram-$mode.$round.tsv"
    [ "$round" = 1 ] && mv "$work/engram-$mode.run" "$work/runs/engram-$mode.run"
    rm -f "$work/engram-$mode.run"
  done
}
load_before=$(uptime | sed 's/.*load average: *//')
for round in $(seq 1 "$rounds"); do
  echo "peers: round $round of $rounds" >&2
  if [ $((round % 2)) = 1 ]; then
    node bench/peers/peers.mjs "$work" "$round" "$port" "$server_pid"
    in_process "$round"
  else
    in_process "$round"
    node bench/peers/peers.mjs "$work" "$round" "$port" "$server_pid"
  fi
done
load_after=$(uptime | sed 's/.*load average: *//')

runs=("$work/runs/engram-blended.run")
for run in "$work"/runs/*.run; do
  [ "$run" = "$work/runs/engram-blended.run" ] || runs+=("$run")
done
"$build/bench/peer_tool" score "$dataset" "${runs[@]}" > "$work/scores.tsv"
[ -z "${PEERS_SCORES:-}" ] || cp "$work/scores.tsv" "$PEERS_SCORES"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
echo "\`bench/peers/run.sh $(basename "$dataset") $rounds\`"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit; $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load average before: $load_before, after: $load_after"
echo
python3 bench/peers/report.py "$work" "$rounds"
