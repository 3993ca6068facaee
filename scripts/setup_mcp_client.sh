#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK (the version tests/mcp_client/
# package.json pins) into .cache/mcp-client, for the test that drives
# `engram mcp` and `engram serve` with it as a client. Idempotent: an
# install of the pinned version is reused. Prints the directory.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.cache/mcp-client
want=$(sed -n 's/.*"@modelcontextprotocol\/sdk": "\([^"]*\)".*/\1/p' tests/mcp_client/package.json)
have=$(node -p "require('./$dir/node_modules/@modelcontextprotocol/sdk/package.json').version" \
  2>/dev/null || true)
if [ "$have" != "$want" ]; then
  echo "setup_mcp_client: npm install @modelcontextprotocol/sdk@$want" >&2
  mkdir -p "$dir"
  cp tests/mcp_client/package.json "$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund >/dev/null)
fi
echo "$PWD/$dir"
