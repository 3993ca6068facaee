#!/usr/bin/env bash
# Two engram binaries side by side on one-shot commands: a 10,000-fact
# store of scifact sentences embedded with the local model (as
# bench/cli_speed.sh makes it, imported by OLD), then ROUNDS (21) rounds,
# each running, for OLD then NEW, a bare start (`engram --version`, which
# exits with a usage error), a `--mode lexical` search and a blended one,
# the query moving through the first 20 scifact claims. Each binary has a
# home of its own (its model file and the stamp beside it) and a copy of
# the store (with the vector snapshot it writes), so neither undoes the
# other's caches. Before the counted rounds, every file of both is dropped
# from the page cache (as after a reboot, or after memory pressure evicted
# them) and read back by one uncounted search of its own binary, so each
# binary's own reads decide how the cache holds its files. Wall time per
# run from bash's clock (microseconds), user and system time from bash's
# `time` (ms resolution); prints the medians of each binary and kind as
# JSON lines.
#
#   bench/oneshot_compare.sh OLD_ENGRAM NEW_ENGRAM
#
# Each binary's model is converted with the use_lite_convert beside it (a
# binary reads the model file format of its own converter). Needs
# ../shared/datasets/scifact and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
old=$(realpath "${1:?usage: bench/oneshot_compare.sh OLD_ENGRAM NEW_ENGRAM}")
new=$(realpath "${2:?usage: bench/oneshot_compare.sh OLD_ENGRAM NEW_ENGRAM}")
rounds=${ROUNDS:-21}
dataset=${DATASETS:-../shared/datasets}/scifact
require_dataset oneshot_compare "$dataset" || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ENGRAM_CONFIG="$work/none.toml"
export HOME="$work/user"
unset ENGRAM_EMBED_PROVIDER ENGRAM_EMBED_MODELS_DIR XDG_CACHE_HOME
compare_homes "$old" "$new" "$dataset" || exit 1
queries=()
while IFS= read -r q; do queries+=("$q"); done < <(first_queries "$dataset/queries.jsonl" 20)

# Runs KIND of binary SIDE once and appends "SIDE KIND WALL_MS USER SYS":
# wall time from bash's clock around the command (in this shell, so no
# subshell is counted), user and system seconds from `time`.
TIMEFORMAT='%3U %3S'
run() {
  local side=$1 kind=$2 query=$3 binary=$old
  [ "$side" = new ] && binary=$new
  local -a args
  case $kind in
    start) args=(--version) ;;
    lexical) args=(--db "$work/$side/store.db" search "$query" -k 10 --mode lexical) ;;
    blended) args=(--db "$work/$side/store.db" search "$query" -k 10) ;;
  esac
  local t0 t1
  t0=${EPOCHREALTIME/,/.}
  { time ENGRAM_HOME="$work/$side" "$binary" "${args[@]}" > /dev/null 2>&1; } 2> "$work/cpu.txt" ||
    true
  t1=${EPOCHREALTIME/,/.}
  echo "$side $kind $(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) * 1000 }') $(cat "$work/cpu.txt")" \
    >> "$work/times.txt"
}
# Drops every file under the homes from the page cache.
drop_cached() {
  python3 - "$work/old" "$work/new" <<'EOF'
import os, sys
for home in sys.argv[1:]:
    for root, _, files in os.walk(home):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
EOF
}
# Uncounted rounds: two that write snapshots, stamps and tables; then,
# from a page cache without the files, one that reads them back.
for side in old new; do
  for kind in lexical blended; do run "$side" "$kind" "${queries[0]}"; done
done
sleep 1.5  # files a second old are stamped (src/common/verified_stamp.h)
for side in old new; do run "$side" blended "${queries[0]}"; done
drop_cached
for side in old new; do run "$side" blended "${queries[0]}"; done
: > "$work/times.txt"
for round in $(seq "$rounds"); do
  query=${queries[$(( (round - 1) % ${#queries[@]} ))]}
  for side in old new; do
    for kind in start lexical blended; do run "$side" "$kind" "$query"; done
  done
done
python3 - "$work/times.txt" <<'EOF'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    side, kind, wall, user, system = line.split()
    runs[(side, kind)].append((float(wall), (float(user) + float(system)) * 1000))
for (side, kind), values in sorted(runs.items()):
    print(json.dumps({"binary": side, "kind": kind, "runs": len(values),
                      "wall_ms_median": round(statistics.median(v[0] for v in values), 1),
                      "cpu_ms_median": round(statistics.median(v[1] for v in values), 1)}))
EOF
