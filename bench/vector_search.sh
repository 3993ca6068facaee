#!/usr/bin/env bash
# Vector search benchmark (bench/vector_search.cc) as one Markdown table:
# our FlatIndex (float and int8 scan) vs FAISS IndexFlatIP and the memory
# bandwidth limit, our HnswIndex vs raw hnswlib, on the same vectors.
# Builds nothing; build the vector_search target in a Release tree first.
#
#   bench/vector_search.sh [BUILD_DIR] [-- extra vector_search flags]
#
# BUILD_DIR defaults to ./build (the binary is BUILD_DIR/bench/vector_search).
# Example: bench/vector_search.sh build-rel -- --sizes 10000,100000 --threads 1,2
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift $(($# > 0 ? 1 : 0))
[ "${1:-}" = "--" ] && shift
extra=("$@")
binary=$build_dir/bench/vector_search
if [ ! -x "$binary" ]; then
  echo "bench: $binary is missing; build the vector_search target (needs libfaiss-dev)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load_before=$(uptime | sed 's/.*load average: *//')
"$binary" "${extra[@]}" > "$work/out.tsv" 2> >(tee "$work/err.log" >&2)
load_after=$(uptime | sed 's/.*load average: *//')

echo "\`$binary ${extra[*]}\`"
echo
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit; $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs));" \
  "$(grep -m1 'dot kernel' "$work/err.log"); load average before: $load_before, after: $load_after"
echo
echo "| data | n | engine | search threads | ef | build (s) | p50 (ms) | p95 (ms) | CPU p50 (ms) | recall@k | memory (B/vector) | file (B/vector) | CPU vs read |"
echo "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
tail -n +2 "$work/out.tsv" | awk -F'\t' '{
  printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
    $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }'
