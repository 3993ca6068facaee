#!/usr/bin/env bash
# Embedding speed of the embedded model (bench/embed_speed.cc), once per
# OpenBLAS thread count and dense product threshold, as one Markdown table.
# Builds nothing.
#
#   bench/embed_speed.sh [BUILD_DIR] [MODEL_FILE] [-- extra embed_speed flags]
#
# BUILD_DIR defaults to ./build (the binary is BUILD_DIR/bench/embed_speed);
# MODEL_FILE to BUILD_DIR/models/use-lite-en.bin (written by
# use_lite_convert). THREADS lists the OPENBLAS_NUM_THREADS values to run
# (default "1 2"); SGEMM_MIN_ROWS the --sgemm-min-rows values to run with
# each (default "1 max": every product on OpenBLAS sgemm, then every one on
# the packed kernel; "default" is the encoder's own threshold).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
model=${2:-$build_dir/models/use-lite-en.bin}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = "--" ] && shift
extra=("$@")
binary=$build_dir/bench/embed_speed
threads=${THREADS:-1 2}
min_rows=${SGEMM_MIN_ROWS:-1 max}
runs=()
for t in $threads; do
  for m in $min_rows; do runs+=("$t:$m"); done
done
if [ ! -x "$binary" ]; then
  echo "bench: $binary is missing; build the embed_speed target first" >&2
  exit 1
fi
if [ ! -f "$model" ]; then
  echo "bench: model file $model is missing; run use_lite_convert first" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in "${!runs[@]}"; do
  run=${runs[$i]}
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  OPENBLAS_NUM_THREADS=${run%%:*} "$binary" --model "$model" --sgemm-min-rows "${run#*:}" \
    "${extra[@]}" > "$work/$i.tsv"
  printf 'load_before\t%s\nload_after\t%s\n' "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" \
    >> "$work/$i.tsv"
done

value() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$work/$1.tsv"; }
row() {
  local label=$1 key=$2 line="| $1 |"
  for i in "${!runs[@]}"; do line+=" $(value "$i" "$key") |"; done
  echo "$line"
}

# The command as anyone can rerun it: paths inside the repository relative
# to its root, the model under $ENGRAM_HOME named through it, any other
# path by its file name alone (it names nothing on another machine).
shown_path() {
  local path root
  path=$(realpath -m "$1")
  root=$(pwd -P)
  if [ -n "${ENGRAM_HOME:-}" ] && [[ $path == "$(realpath -m "$ENGRAM_HOME")"/* ]]; then
    echo "\$ENGRAM_HOME/${path#"$(realpath -m "$ENGRAM_HOME")"/}"
  elif [[ $path == "$root"/* ]]; then
    echo "${path#"$root"/}"
  else
    basename "$path"
  fi
}
first=0
echo "$(shown_path "$binary") --model $(shown_path "$model") ${extra[*]}"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs));" \
  "load:$(uptime | sed 's/.*load average://')"
echo
header="| OPENBLAS_NUM_THREADS : sgemm_min_rows |"
rule="|---|"
for run in "${runs[@]}"; do
  header+=" $run |"
  rule+="---:|"
done
echo "$header"
echo "$rule"
row "OpenBLAS threads after model load" openblas_threads
row "sgemm_min_rows in effect" sgemm_min_rows
row "machine load, 1-min average, before run" load_before
row "machine load, 1-min average, after run" load_after
row "model load (ms)" load_ms
row "batch: sentences" batch_sentences
row "batch: size (texts per call)" batch_size
row "batch: mean tokens per sentence" batch_mean_tokens
row "batch: sentences/s, median of $(value "$first" batch_rounds)" batch_sentences_per_s_median
row "batch: sentences/s, best" batch_sentences_per_s_best
row "batch: CPU ms per sentence (all threads)" batch_cpu_ms_per_sentence_median
row "batch: dense products ran on" batch_dense_path
row "query: count (one text per call)" query_count
row "query: mean tokens" query_mean_tokens
row "query: p50 (ms)" query_ms_p50
row "query: p95 (ms)" query_ms_p95
row "query: p99 (ms)" query_ms_p99
row "query: mean (ms)" query_ms_mean
row "query: CPU p50 (ms)" query_cpu_ms_p50
row "query: dense products ran on" query_dense_path
row "tokenizer alone per query (µs)" tokenize_us_per_query
