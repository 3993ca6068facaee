#!/usr/bin/env bash
# A large HNSW scope through the engine (bench/hnsw_live.cc): build,
# restart without reading the scope's vectors, recall and search time, and
# searches beside adds. Prints a Markdown report headed by the command, the
# commit and the machine. Builds nothing; build the hnsw_live target in a
# Release tree first (`make bench` does).
#
#   bench/hnsw_live.sh [BUILD_DIR] [-- extra hnsw_live flags]
#
# BUILD_DIR defaults to ./build. The store (about 2.5 KB a vector) is made
# in --dir (default /tmp) and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift $(($# > 0 ? 1 : 0))
[ "${1:-}" = "--" ] && shift
extra=("$@")
binary=$build_dir/bench/hnsw_live
if [ ! -x "$binary" ]; then
  echo "bench: $binary is missing; build the hnsw_live target" >&2
  exit 1
fi

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
load_before=$(uptime | sed 's/.*load average: *//')
report=$("$binary" "${extra[@]}")
load_after=$(uptime | sed 's/.*load average: *//')

echo "\`$binary ${extra[*]}\`"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit; $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load average before: $load_before, after: $load_after"
echo
echo "$report"
