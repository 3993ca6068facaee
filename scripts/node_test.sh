#!/usr/bin/env bash
# Runs one of tests/node/*.mjs with the packages `make setup` installed
# (scripts/setup_node_tests.sh); nothing is fetched.
#
#   scripts/node_test.sh SCRIPT.mjs ARGS...
#   e.g. scripts/node_test.sh mcp_session.mjs ENGRAM_BINARY MODELS_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.cache/node-tests
if [ ! -f "$dir/package.json" ] || ! cmp -s "$root/tests/node/package.json" "$dir/package.json"; then
  echo "node_test: the pinned Node packages are not installed in $dir; run 'make setup'" >&2
  exit 1
fi
script=$1
shift
# Node resolves packages from the script's directory: run copies there.
cp "$root"/tests/node/*.mjs "$dir/"
exec node "$dir/$script" "$@"
