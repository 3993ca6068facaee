#!/usr/bin/env bash
# Embedding speed of the embedded model (bench/embed_speed.cc), once per
# OpenBLAS thread count, as one Markdown table. Builds nothing.
#
#   bench/embed_speed.sh [BUILD_DIR] [MODEL_FILE] [-- extra embed_speed flags]
#
# BUILD_DIR defaults to ./build (the binary is BUILD_DIR/bench/embed_speed);
# MODEL_FILE to BUILD_DIR/models/use-lite-en.bin (written by
# use_lite_convert). THREADS lists the OPENBLAS_NUM_THREADS values to run
# (default "1 2").
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
model=${2:-$build_dir/models/use-lite-en.bin}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = "--" ] && shift
extra=("$@")
binary=$build_dir/bench/embed_speed
threads=${THREADS:-1 2}
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
for t in $threads; do
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  OPENBLAS_NUM_THREADS=$t "$binary" --model "$model" "${extra[@]}" > "$work/$t.tsv"
  printf 'load_before\t%s\nload_after\t%s\n' "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" \
    >> "$work/$t.tsv"
done

value() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$work/$1.tsv"; }
row() {
  local label=$1 key=$2 line="| $1 |"
  for t in $threads; do line+=" $(value "$t" "$key") |"; done
  echo "$line"
}

first=${threads%% *}
echo "$binary --model $model ${extra[*]}"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs));" \
  "load:$(uptime | sed 's/.*load average://')"
echo
header="| OPENBLAS_NUM_THREADS |"
rule="|---|"
for t in $threads; do
  header+=" $t |"
  rule+="---:|"
done
echo "$header"
echo "$rule"
row "machine load, 1-min average, before run" load_before
row "machine load, 1-min average, after run" load_after
row "model load (ms)" load_ms
row "batch: sentences" batch_sentences
row "batch: size (texts per call)" batch_size
row "batch: mean tokens per sentence" batch_mean_tokens
row "batch: sentences/s, median of $(value "$first" batch_rounds)" batch_sentences_per_s_median
row "batch: sentences/s, best" batch_sentences_per_s_best
row "batch: CPU ms per sentence (all threads)" batch_cpu_ms_per_sentence_median
row "query: count (one text per call)" query_count
row "query: mean tokens" query_mean_tokens
row "query: p50 (ms)" query_ms_p50
row "query: p95 (ms)" query_ms_p95
row "query: p99 (ms)" query_ms_p99
row "query: mean (ms)" query_ms_mean
row "query: CPU p50 (ms)" query_cpu_ms_p50
row "tokenizer alone per query (µs)" tokenize_us_per_query
