#!/usr/bin/env bash
# Installs the Debian packages engram needs that are missing, and nothing
# else. Runs as root (or with sudo available). Safe to run repeatedly.
# Arguments name extra packages (e.g. `make bench` adds libfaiss-dev).
set -euo pipefail

packages=(
  g++ make cmake ninja-build pkg-config
  libsqlite3-dev libicu-dev libssl-dev nlohmann-json3-dev libstemmer-dev
  libcli11-dev libtomlplusplus-dev libopenblas-dev libhnswlib-dev
  libcurl4-openssl-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy clang-14 libclang-rt-14-dev python3
  python3-pytest python3-venv python3-pip dpkg-dev zlib1g-dev dict-freedict-por-eng dict-freedict-eng-por
  libpq-dev postgresql
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# npm fetches the embedded model's package; any npm on PATH will do.
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# The tests run PostgreSQL clusters of their own (scripts/pg_cluster.sh):
# installing the server must not also create and start a system-wide one.
if [[ " ${missing[*]} " == *" postgresql "* ]]; then
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" |
    $sudo tee /etc/postgresql-common/createcluster.d/engram-no-main-cluster.conf > /dev/null
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
