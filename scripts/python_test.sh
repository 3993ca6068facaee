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
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$root/python"

# Run from outside the source tree, so `import engram` is the installed one.
cd "$work"
export ENGRAM_LIBRARY=$library ENGRAM_TEST_MODELS_DIR=$models
if [ -n "${ASAN_PRELOAD:-}" ]; then
  # Python itself is not built with ASan: its allocations are not leaks to
  # report, so leak detection is off here (the C test keeps it on).
  export LD_PRELOAD=$ASAN_PRELOAD ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
# The package under test is the one pip installed, not the source tree.
"$work/venv/bin/python" -c 'import engram, sys; sys.exit(engram.__file__.startswith(sys.argv[1]))' "$root/python"
exec "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
