#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) over the project's sources using the
# compile database of the build directory given; fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-test}
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'src/*.cc' 'tools/*.cc' | grep -v '_test\.cc$')
jobs=$(nproc)
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 4 clang-tidy -p "$build_dir" --quiet \
  --warnings-as-errors='*' 2>/dev/null > /tmp/engram-tidy.log || {
  grep -E 'warning:|error:' -A3 /tmp/engram-tidy.log | head -80
  echo "tidy: findings above; fix them or justify a NOLINT" >&2
  exit 1
}
echo "tidy: ${#files[@]} files clean"
