#!/usr/bin/env bash
# Builds bottleneckd and runs it on this host with etc/bottleneckd.yaml.
# Extra arguments go to the daemon (e.g. --web.listen-address=127.0.0.1:9858).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run   # only what building and running needs
# A unity build (BOTTLENECKD_UNITY) made by Ninja: each stage's sources in a
# few batches, both cores busy (docs/performance.md, "CI").
gen=()
[ -f build/release/CMakeCache.txt ] || gen=(-G Ninja)
cmake -S . -B build/release "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DBOTTLENECKD_TESTS=OFF -DBOTTLENECKD_UNITY=ON >/dev/null
cmake --build build/release --target bottleneckd bottleneckd_docs -j"$(nproc)"  # the binary, its man page and completion
exec build/release/bottleneckd --config.file=etc/bottleneckd.yaml "$@"
