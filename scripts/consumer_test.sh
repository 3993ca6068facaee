#!/usr/bin/env bash
# engram as other programs use it: installs a build into a temporary prefix
# (cmake --install) and builds, against it alone, the C++ example with
# find_package(engram) (examples/cpp) and the C example with pkg-config
# (examples/c); both must add facts and find one, with the embedded model
# found in the prefix. Then packs the same build as a .deb (cpack), unpacks
# it with dpkg -x into a temporary root, and does it all again there; the
# Python package must find the library through pkg-config in both.
#
#   scripts/consumer_test.sh BUILD_DIR [EXTRA_FLAGS]
#
# EXTRA_FLAGS go to the consumers' compiler and linker: a build made with
# sanitizers needs them (-fsanitize=address,undefined).
set -euo pipefail

build=$(cd "$1" && pwd)
flags=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "consumer_test: $*" >&2; exit 1; }

# The two examples and the Python package against the engram under PREFIX.
check_prefix() {
  local prefix=$1 name=$2
  local out="$work/$name"
  mkdir -p "$out/home"
  [ -f "$prefix/share/engram/models/use-lite-en.bin" ] || fail "$name: no model in $prefix"
  [ -f "$prefix/share/man/man1/engram.1" ] || fail "$name: no manual page in $prefix"
  # Only what the prefix holds: no ENGRAM_HOME, an empty HOME, no user model.
  local -a env=(env -u ENGRAM_HOME -u ENGRAM_EMBED_MODELS_DIR -u XDG_DATA_HOME HOME="$out/home")

  cmake -S "$root/examples/cpp" -B "$out/cpp" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$out/cmake.log" ||
    { cat "$out/cmake.log"; fail "$name: configuring examples/cpp failed"; }
  cmake --build "$out/cpp" >>"$out/cmake.log" ||
    { cat "$out/cmake.log"; fail "$name: building examples/cpp failed"; }
  "${env[@]}" "$out/cpp/remember" "$out/cpp.db" >"$out/cpp.out" 2>"$out/cpp.err" ||
    { cat "$out/cpp.err"; fail "$name: examples/cpp failed"; }

  local pc="$prefix/lib/pkgconfig"
  # shellcheck disable=SC2046,SC2086
  cc -std=c11 -Wall -Wextra -Werror $flags "$root/examples/c/remember.c" -o "$out/c-remember" \
    $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs engram) \
    -Wl,-rpath,"$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir engram)" ||
    fail "$name: building examples/c failed"
  "${env[@]}" "$out/c-remember" "$out/c.db" >"$out/c.out" 2>"$out/c.err" ||
    { cat "$out/c.err"; fail "$name: examples/c failed"; }

  for example in cpp c; do
    grep -q "Maya is allergic to peanuts" "$out/$example.out" ||
      fail "$name: examples/$example did not find the fact: $(cat "$out/$example.out")"
    if grep -q "warning" "$out/$example.err"; then
      fail "$name: examples/$example: $(cat "$out/$example.err")"
    fi
  done

  # Run as a user runs it, found on PATH.
  "${env[@]}" PATH="$prefix/bin:$PATH" engram --db "$out/cli.db" config >"$out/config.out" 2>&1 ||
    { cat "$out/config.out"; fail "$name: engram config failed"; }
  grep -q "embed model file .*share/engram/models/use-lite-en.bin  (found in .*(the install prefix))" \
    "$out/config.out" || fail "$name: engram config does not say the model is the prefix's: $(grep 'model file' "$out/config.out")"

  # `engram serve` runs the prefix's libexec/engram/engram-serve, which
  # finds the prefix's model too.
  "${env[@]}" PATH="$prefix/bin:$PATH" engram --db "$out/serve.db" serve --port 0 \
    2>"$out/serve.err" &
  local server=$!
  for _ in $(seq 600); do
    if grep -q "engram: serving" "$out/serve.err" || ! kill -0 "$server" 2>/dev/null; then break; fi
    sleep 0.1
  done
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" || fail "$name: engram serve failed: $(cat "$out/serve.err")"
  grep -q "engram: serving http://127.0.0.1:[0-9]* (store .*, embedding " "$out/serve.err" ||
    fail "$name: engram serve did not serve with the prefix's model: $(cat "$out/serve.err")"

  "${env[@]}" PKG_CONFIG_PATH="$pc" "$work/venv/bin/python" -c '
import engram, sys
with engram.Memory(sys.argv[1]) as m:
    m.add("Maya is allergic to peanuts", tags=["family"])
    hits = m.search("what cannot Maya eat?", k=1, tags=["family"])
    assert hits[0].fact.content == "Maya is allergic to peanuts", hits
    assert hits.semantic and m.warnings == (), m.warnings
print(engram.library_version())' "$out/py.db" >"$out/py.out" 2>&1 ||
    { cat "$out/py.out"; fail "$name: the Python package failed"; }
  echo "consumer_test: $name: C++, C, the CLI, its server and Python work against $prefix"
}

asan=""
if [[ "$flags" == *sanitize=address* ]]; then asan=$(cc -print-file-name=libasan.so); fi
"$root/scripts/python_venv.sh" "$work/venv" "$asan"

# 1. cmake --install
cmake --install "$build" --prefix "$work/prefix" --strip >"$work/install.log"
check_prefix "$work/prefix" install

# Only the public API leaves the library: each engram:: name it exports is
# declared in an installed header, and no library it links is re-exported.
lib="$work/prefix/lib/libengram.so.0.1"
nm -D --defined-only -C "$lib" | sed -n 's/^[0-9a-f]* [A-Za-z] //p' >"$work/symbols"
grep -q '^engram_open$' "$work/symbols" || fail "$lib does not export engram_open"
while read -r name; do
  grep -rqw "$name" "$work/prefix/include/engram" ||
    fail "$lib exports engram::$name, which no installed header declares"
done < <(sed -n 's/^engram::\([A-Za-z_]*\).*/\1/p' "$work/symbols" | sort -u)
if grep -E '^(sqlite3_|u_|ucol_|cblas_|SSL_|toml::|httplib::)' "$work/symbols"; then
  fail "$lib re-exports the symbols above of a library it links"
fi

# 2. The .deb, unpacked
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log") ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/package/engram_*.deb)
dpkg-deb --info "$deb" >"$work/deb-info"
grep -q "Depends:.*libsqlite3" "$work/deb-info" || fail "the .deb names no dependencies: $(cat "$work/deb-info")"
dpkg-deb -x "$deb" "$work/root"
check_prefix "$work/root/usr" deb
