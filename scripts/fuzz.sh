#!/usr/bin/env bash
# Runs every libFuzzer target built in BUILD_DIR (cmake -DENGRAM_FUZZ=ON):
#  1. once over each input of fuzz/seeds/TARGET and fuzz/regressions/TARGET
#     (inputs that once crashed engram, kept so they never do again);
#  2. then SECONDS of fuzzing, starting from the seeds, into CORPUS_DIR/TARGET
#     (default: a temporary directory, removed afterwards).
# Prints, per target, the executions and the corpus size; stops at the first
# crash, with the input saved under BUILD_DIR/fuzz-crashes/.
#
# Usage: scripts/fuzz.sh BUILD_DIR [SECONDS] [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS] [CORPUS_DIR]}
seconds=${2:-10}
corpus_root=${3:-}
crashes="$build/fuzz-crashes"
mkdir -p "$crashes"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

targets=("$build"/fuzz/*_fuzz)
if [ ! -x "${targets[0]}" ]; then
  echo "fuzz: no targets in $build/fuzz; build them with -DENGRAM_FUZZ=ON" >&2
  exit 1
fi
printf '%-18s %8s %12s %8s\n' target inputs executions corpus
for target in "${targets[@]}"; do
  name=$(basename "$target")
  known=()
  for dir in "fuzz/seeds/$name" "fuzz/regressions/$name"; do
    [ -d "$dir" ] && while IFS= read -r -d '' f; do known+=("$f"); done \
      < <(find "$dir" -type f -print0 | sort -z)
  done
  if ! "$target" -artifact_prefix="$crashes/$name-" "${known[@]}" > "$work/$name.known.log" 2>&1; then
    echo "fuzz: $name crashed on a kept input:" >&2
    tail -40 "$work/$name.known.log" >&2
    exit 1
  fi
  corpus="${corpus_root:+$corpus_root/$name}"
  corpus="${corpus:-$work/corpus-$name}"
  mkdir -p "$corpus"
  if ! "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$crashes/$name-" \
      "$corpus" "fuzz/seeds/$name" > "$work/$name.log" 2>&1; then
    echo "fuzz: $name found a crash (input under $crashes):" >&2
    tail -60 "$work/$name.log" >&2
    exit 1
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  size=$(find "$corpus" -type f | wc -l)
  printf '%-18s %8s %12s %8s\n' "$name" "${#known[@]}" "${executions:-?}" "$size"
done
