#!/usr/bin/env bash
# Installs the peers bench/peers/package.json pins (LanceDB, Orama, usearch,
# better-sqlite3) into .cache/peers with npm. Idempotent: an install whose
# package.json matches is reused. Prints the directory.
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=.cache/peers
if ! cmp -s bench/peers/package.json "$dir/package.json" || [ ! -d "$dir/node_modules" ]; then
  echo "peers: npm install into $dir" >&2
  mkdir -p "$dir"
  cp bench/peers/package.json "$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund >/dev/null)
fi
echo "$PWD/$dir"
