#!/usr/bin/env bash
# The demo: loads examples/memory.jsonl into a temporary store and runs a
# few searches with --explain. Leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
engram=${1:-./build/engram}

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export ENGRAM_HOME="$home"
export ENGRAM_CONFIG="$home/config.toml"  # no user config leaks into the demo
# The embedded model, converted into the demo's own home.
scripts/install_model.sh "$(dirname "$engram")/use_lite_convert"

run() {
  echo
  echo "\$ engram $*"
  "$engram" "$@"
}

run import examples/memory.jsonl
run list --limit 5
run search "how do I deploy to production" -k 5 --explain --no-record
run search "what editor do I use" -k 3 --explain --no-record
run search "postgres port" -k 4 --no-record
run search "preferência de idioma" -k 3 --explain --no-record
run search "production freeze" --scope work -k 3 --no-record
run search "database migration" -k 3 --mode lexical --no-record
run search "which shell do I prefer" -k 3 --mode semantic --no-record
run search "how do I deploy to production" -k 3 --mode rrf --explain --no-record
run config
