#!/usr/bin/env bash
# Installs the Node packages tests/node/package.json pins (the official MCP
# TypeScript SDK, and playwright-core, which drives Debian's Chromium and
# downloads no browser of its own) into .cache/node-tests, for the tests
# that run engram with them as clients. Idempotent: an install that
# matches the pins is reused. Prints the directory.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.cache/node-tests
if ! cmp -s tests/node/package.json "$dir/package.json" ||
  [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ] ||
  [ ! -d "$dir/node_modules/playwright-core" ]; then
  echo "setup_node_tests: npm install in $dir" >&2
  mkdir -p "$dir"
  cp tests/node/package.json "$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund >/dev/null)
fi
echo "$PWD/$dir"
