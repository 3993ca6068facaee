#!/usr/bin/env bash
# Runs tests/mcp_client/session.mjs with the MCP TypeScript SDK that
# `make setup` installed (scripts/setup_mcp_client.sh); nothing is fetched.
#
#   scripts/mcp_sdk_test.sh ENGRAM_BINARY MODELS_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.cache/mcp-client
if [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "mcp_sdk_test: the MCP SDK is not installed in $dir; run 'make setup'" >&2
  exit 1
fi
# Node resolves the SDK from the script's directory: run a copy there.
cp "$root/tests/mcp_client/session.mjs" "$dir/session.mjs"
exec node "$dir/session.mjs" "$@"
