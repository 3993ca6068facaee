#!/usr/bin/env bash
# Fails when a C++ file differs from .clang-format; --fix rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h' 2>/dev/null || find include src tools tests bench -name '*.cc' -o -name '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/engram-format.log; then
  head -40 /tmp/engram-format.log
  echo "format: files above differ from .clang-format; run 'make format'" >&2
  exit 1
fi
echo "format: ${#files[@]} files clean"
