#!/usr/bin/env bash
# A virtual environment with the engram package pip-installed from
# ./python (offline: its build backend needs nothing from the network), on
# Debian's python3 with its own packages visible (python3-pytest).
#
#   scripts/python_venv.sh DIR [ASAN_RUNTIME]
#
# With ASAN_RUNTIME (the AddressSanitizer runtime a sanitized libengram
# needs loaded first), DIR/bin/python loads it before anything else and
# turns leak detection off: Python itself is not built with ASan, and its
# allocations are not leaks to report (the C test keeps detection on).
set -euo pipefail
dir=$1
asan=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)

/usr/bin/python3 -m venv --system-site-packages "$dir"
"$dir/bin/pip" install --quiet --no-index --disable-pip-version-check "$root/python"
if [ -n "$asan" ]; then
  mv "$dir/bin/python" "$dir/bin/python.real"
  cat >"$dir/bin/python" <<WRAPPER
#!/bin/sh
LD_PRELOAD=$asan ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0 \\
  exec "$dir/bin/python.real" "\$@"
WRAPPER
  chmod +x "$dir/bin/python"
fi
