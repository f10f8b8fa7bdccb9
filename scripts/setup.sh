#!/usr/bin/env bash
# Set up everything the reducer and its tests need on a fresh Debian machine:
# clang-22/lld-22/llvm-22 (AMDGPU backend, gfx950), llvm-22-tools (FileCheck and lit, for the
# lit tests `reduce ir` writes), clang-format-22 (results are formatted), g++, libclang-22-dev (the footprint
# plugin, tools/footprint, is built against it), and a virtualenv with the package.
# Safe to re-run; installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in clang-22 lld-22 llvm-22 llvm-22-tools clang-format-22 g++ make libclang-22-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${WITH_PEERS:-0}" = 1 ]; then  # peer reducers, for the benchmark scripts only
  for pkg in cvise creduce; do dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
fi
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -e '.[test,bench]'

# the footprint plugin: rebuilt when its source is newer than the build (make's rule)
make -s -C tools/footprint
# the variants plugin: a kept candidate's guard builds from one front end
make -s -C tools/variants
# the fork server the oracle starts clang, lld and llc from (a test's process starts, paid once)
make -s -C tools/forkserver
