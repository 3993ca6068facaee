#!/usr/bin/env bash
# Cosine of judged-relevant and non-relevant (query, document) pairs under
# the embedded model (bench/cosine_distribution.cc), as Markdown tables, to
# choose vector.min_cosine for the `local` provider. Builds nothing.
#
#   bench/cosine_distribution.sh [BUILD_DIR] [DATASET ...] [-- extra flags]
#
# BUILD_DIR defaults to ./build (the binary is BUILD_DIR/bench/
# cosine_distribution). DATASET names a directory of ${DATASETS:-
# ../shared/datasets} or is a path; default: locomo-dev cranfield scifact.
# The model is read from MODELS_DIR (default BUILD_DIR/models) and installed
# there with scripts/install_model.sh and BUILD_DIR/use_lite_convert when
# missing. Extra flags go to the binary, e.g. -- --max-docs 2000.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
[ $# -gt 0 ] && shift
names=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  names+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
extra=("$@")
[ ${#names[@]} -gt 0 ] || names=(locomo-dev cranfield scifact)
binary=$build_dir/bench/cosine_distribution
models=${MODELS_DIR:-$build_dir/models}
if [ ! -x "$binary" ]; then
  echo "bench: $binary is missing; build the cosine_distribution target first" >&2
  exit 1
fi
if [ ! -f "$models/use-lite-en.bin" ]; then
  scripts/install_model.sh "$build_dir/use_lite_convert" "$models"
fi
dirs=()
for name in "${names[@]}"; do
  if [ -d "$name" ]; then dirs+=("$name"); else dirs+=("${DATASETS:-../shared/datasets}/$name"); fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" --models-dir "$models" "${extra[@]}" "${dirs[@]}" > "$work/out.tsv"

value() { awk -F'\t' -v d="$1" -v k="$2" '$1 == d && $2 == k { print $3 }' "$work/out.tsv"; }
datasets=$(cut -f1 "$work/out.tsv" | awk '!seen[$0]++')
floors=$(awk -F'\t' '$2 ~ /^relevant_at_least_/ { sub(/^relevant_at_least_/, "", $2); print $2 }' \
  "$work/out.tsv" | awk '!seen[$0]++')
topk=$(value "$(echo "$datasets" | head -n 1)" topk)

echo "$binary --models-dir $models ${extra[*]} ${dirs[*]}"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo
echo "Corpus and pairs:"
echo
echo "| dataset | docs (of corpus) | corpus share over 128 tokens | queries | relevant pairs | non-relevant pairs | embed s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for d in $datasets; do
  echo "| $d | $(value "$d" docs) ($(value "$d" corpus_docs)) | $(value "$d" docs_truncated_share) |" \
    "$(value "$d" queries) | $(value "$d" relevant_pairs) | $(value "$d" nonrelevant_pairs) |" \
    "$(value "$d" embed_seconds) |"
done
echo
echo "Cosine quantiles:"
echo
echo "| dataset | pairs | p5 | p25 | p50 | p75 | p95 |"
echo "|---|---|---:|---:|---:|---:|---:|"
for d in $datasets; do
  for class in relevant nonrelevant; do
    label=$class
    [ "$class" = nonrelevant ] && label=non-relevant
    line="| $d | $label |"
    for q in p5 p25 p50 p75 p95; do line+=" $(value "$d" "${class}_$q") |"; done
    echo "$line"
  done
done
echo
echo "By floor (cosine >= floor): share of pairs kept; share of queries with a relevant"
echo "document among their top-$topk vector hits that pass the floor; mean vector hits"
echo "left of $topk:"
echo
header="| dataset | figure | no floor |"
rule="|---|---|---:|"
for f in $floors; do
  header+=" $f |"
  rule+="---:|"
done
echo "$header"
echo "$rule"
for d in $datasets; do
  row() {
    local line="| $d | $1 | $2 |"
    for f in $floors; do line+=" $(value "$d" "$3$f") |"; done
    echo "$line"
  }
  row "relevant pairs kept" "1.000" relevant_at_least_
  row "non-relevant pairs kept" "1.000" nonrelevant_at_least_
  row "queries with a relevant top-$topk hit" "$(value "$d" topk_hit_none)" topk_hit_
  row "top-$topk hits left" "$(value "$d" topk_kept_none)" topk_kept_
done
