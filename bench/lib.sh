# Shell helpers of the bench scripts: source it.

# start_server LOG COMMAND...: runs COMMAND (an `engram ... serve --port 0`
# command line) in the background with its standard error in LOG, and waits
# up to 60 s for it to say where it serves. Sets server_pid and port; on
# failure prints LOG and returns 1.
start_server() {
  local log=$1
  shift
  "$@" 2> "$log" &
  server_pid=$!
  for _ in $(seq 1 600); do
    grep -q "engram: serving http://" "$log" && break
    sleep 0.1
  done
  port=$(grep -o "serving http://127.0.0.1:[0-9]*" "$log" | grep -o "[0-9]*$")
  [ -n "$port" ] || { cat "$log" >&2; return 1; }
}

# install_model CONVERTER DIR: converts the embedded model into DIR with
# scripts/install_model.sh, quietly; on failure prints its messages and
# returns 1.
install_model() {
  local log
  log=$(mktemp)
  if ! scripts/install_model.sh "$1" "$2" 2> "$log"; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

# first_queries QUERIES_JSONL [N]: the text of the first N queries of a
# BEIR queries file (every one without N), one a line.
first_queries() {
  python3 -c '
import json, sys
limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    if limit is not None and i >= limit:
        break
    print(json.loads(line)["text"])' "$@"
}

# compare_homes OLD_ENGRAM NEW_ENGRAM DATASET_DIR: for two builds side by
# side, a home each in $work/old and $work/new, with the embedded model
# converted by the use_lite_convert beside each engram (a build reads the
# model file format of its own converter), and in both as store.db the
# same 10,000-fact store of the dataset's sentences, imported by OLD.
compare_homes() {
  local side binary
  for side in old new; do
    binary=$1
    [ "$side" = new ] && binary=$2
    install_model "$(dirname "$binary")/use_lite_convert" "$work/$side/models" || return 1
  done
  python3 bench/make_facts.py "$3/corpus.jsonl" sentences 10000 "$work/facts.jsonl"
  # Imported by OLD, copied for NEW: a newer build opens an older store,
  # migrating it forward as it would a user's, where an older build refuses
  # a newer schema.
  ENGRAM_HOME="$work/old" "$1" --db "$work/old/store.db" import "$work/facts.jsonl" > /dev/null
  cp "$work/old/store.db" "$work/new/store.db"
}

# require_dataset NAME DIR: returns 1, saying what is missing, when DIR (a
# dataset in BEIR layout) has no corpus.jsonl.
require_dataset() {
  if [ ! -f "$2/corpus.jsonl" ]; then
    echo "$1: $2/corpus.jsonl is missing; this needs the $(basename "$2") dataset" \
      "(DATASETS names the directory that holds the datasets)" >&2
    return 1
  fi
}

# require_built NAME BUILD TARGET...: returns 1, saying what to build, when
# a TARGET is not an executable under BUILD (at its top, or in bench/).
require_built() {
  local name=$1 build=$2 target path
  shift 2
  for target in "$@"; do
    path=$build/$target
    [ -x "$path" ] || path=$build/bench/$target
    if [ ! -x "$path" ]; then
      echo "$name: $build has no $target; build the $* targets" >&2
      return 1
    fi
  done
}
