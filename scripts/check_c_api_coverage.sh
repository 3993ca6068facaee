#!/usr/bin/env bash
# Fails when a function of include/engram/c.h is not called by
# tests/c_api_test.c, so the C API's test keeps exercising all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
for f in $(grep -o 'engram_[a-z_]*(' include/engram/c.h | tr -d '(' | sort -u); do
  if ! grep -q "$f(" tests/c_api_test.c; then
    echo "c_api_coverage: tests/c_api_test.c never calls $f" >&2
    missing=1
  fi
done
exit $missing
