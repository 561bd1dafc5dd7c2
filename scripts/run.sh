#!/usr/bin/env bash
# Builds bottleneckd and runs it on this host with etc/bottleneckd.yaml.
# Extra arguments go to the daemon (e.g. --web.listen-address=127.0.0.1:9858).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run   # only what building and running needs
# A unity build (BOTTLENECKD_UNITY): a fresh tree compiles in about half the time.
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DBOTTLENECKD_TESTS=OFF -DBOTTLENECKD_UNITY=ON >/dev/null
cmake --build build/release --target bottleneckd bottleneckd_docs -j"$(nproc)"  # the binary, its man page and completion
exec build/release/bottleneckd --config.file=etc/bottleneckd.yaml "$@"
