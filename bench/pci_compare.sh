#!/usr/bin/env bash
# What it costs to learn every NIC's bus path, side by side with the peer tool:
# `lspci -vv` (pciutils) decoding every function's config space against
# `bottleneckd --once` with only the pci collector on (reads the topology and
# config space once, then one steady tick 10 ms later, and prints the metrics), both as
# whole processes under hyperfine, on this host's /sys and on the pcie-box and
# large-host fixture trees (lspci -F on a dump of the same config files).
# Then pci_bench's microbenchmarks: the topology read alone on this host, and
# the per-tick cost once it is cached.
# Nothing here passes or fails on a time. Results as a Markdown table on stdout
# (and in $OUT when set).
#
# usage: bench/pci_compare.sh BOTTLENECKD_BINARY PCI_BENCH_BINARY
# env:   RUNS=20 (hyperfine runs per command), OUT=FILE
set -euo pipefail

BIN=${1:?usage: pci_compare.sh BOTTLENECKD PCI_BENCH}
PCI_BENCH=${2:?usage: pci_compare.sh BOTTLENECKD PCI_BENCH}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
RUNS=${RUNS:-20}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v hyperfine >/dev/null || { echo "pci_compare.sh: hyperfine missing (scripts/install-deps.sh)" >&2; exit 1; }
command -v lspci >/dev/null || { echo "pci_compare.sh: lspci missing (pciutils)" >&2; exit 1; }

# --once takes two samples one interval apart: 10 ms, so the figure is the work.
printf 'interval: 10ms\n' >"$TMP/fast.yaml"
ONLY_PCI=(--config.file="$TMP/fast.yaml" --no-collector.cpu --no-collector.interrupts --no-collector.softirqs --no-collector.netdev
          --no-collector.sockets --no-collector.threads --log.level=error)

# An `lspci -x`-style dump of every config file under a fixture's sys tree.
dump_tree() {
  local sys=$1 f addr
  for f in "$sys"/bus/pci/devices/*; do
    addr=$(basename "$f")
    echo "${addr#*:} dump"
    od -An -v -tx1 -w16 "$f/config" | awk '{ printf "%02x:", (NR - 1) * 16; for (i = 1; i <= NF; i++) printf " %s", $i; print "" }'
    echo
  done
}

{
  echo "| tree | lspci -vv (ms) | bottleneckd --once, pci only (ms) |"
  echo "|---|---|---|"
  for tree in live pcie-box large-host; do
    if [[ $tree == live ]]; then
      lspci_cmd="lspci -vv"
      bn_cmd="$BIN --once ${ONLY_PCI[*]}"
    else
      dump_tree "$SRC/tests/fixtures/$tree/sys" >"$TMP/$tree.dump"
      lspci_cmd="lspci -F $TMP/$tree.dump -vv"
      bn_cmd="$BIN --once ${ONLY_PCI[*]} --path.sysfs=$SRC/tests/fixtures/$tree/sys --path.procfs=$SRC/tests/fixtures/$tree/proc"
    fi
    hyperfine -N --runs "$RUNS" --warmup 2 --export-json "$TMP/$tree.json" "$lspci_cmd" "$bn_cmd" >/dev/null 2>&1
    python3 - "$TMP/$tree.json" "$tree" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
f = lambda x: "%.2f ± %.2f" % (x["mean"] * 1e3, x["stddev"] * 1e3)
print("| %s | %s | %s |" % (sys.argv[2], f(r[0]), f(r[1])))
PY
  done
  echo
  echo '```'
  BOTTLENECKD_BENCH_LIVE=1 "$PCI_BENCH" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
    grep -E "^BM_.*_mean"
  echo '```'
} | tee "${OUT:-/dev/null}"
