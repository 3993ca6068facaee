#!/usr/bin/env bash
# The Python package's tests (python/tests) against a built libengram:
# installs ./python with pip into a fresh virtual environment (offline: the
# package's build backend needs nothing from the network), then runs pytest
# from Debian's python3-pytest.
#
#   scripts/python_test.sh LIBENGRAM MODELS_DIR
#
# LIBENGRAM is the shared library to load (ENGRAM_LIBRARY); MODELS_DIR holds
# the converted embedded model. A library built with AddressSanitizer needs
# its runtime loaded first: ASAN_PRELOAD names it (tests/CMakeLists.txt sets
# it for the sanitized build).
set -euo pipefail

library=$1
models=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$root/scripts/python_venv.sh" "$work/venv" "${ASAN_PRELOAD:-}"
# Run from outside the source tree, so `import engram` is the installed one.
cd "$work"
export ENGRAM_LIBRARY=$library ENGRAM_TEST_MODELS_DIR=$models
# The package under test is the one pip installed, not the source tree.
"$work/venv/bin/python" -c 'import engram, sys; sys.exit(engram.__file__.startswith(sys.argv[1]))' "$root/python"
exec "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
