#!/usr/bin/env bash
# Builds the release + benchmark tree (build/bench) and runs every benchmark of
# docs/performance.md: the Google Benchmark microbenchmarks, the scrape
# comparison with node_exporter on the fixture trees, the live daemon's standing
# cost, the PCI topology read against lspci, and an instruction profile of
# `bottleneckd --once`, the offline capture analysis against tcpdump and tshark
# (bench/pcap_compare.sh) and the live capture's zero-drop rate on a veth pair
# (bench/capture_live.sh, needs root). Results go to
# $RESULTS (default build/bench/results) and are printed at the end.
# Not part of the test suite: nothing here passes or fails on a time.
#
# usage: bench/run.sh
# env:   STEPS="build machine micro scrape daemon pci pcap capture profile fleet" (any subset, in order;
#        fleet: bench/fleet_series.sh and bench/fleet_scale.sh, about 15 min and 5 GB of temp space)
#        JOBS=2 REPS=5 (microbenchmark repetitions) RESULTS=DIR
#        and those of bench/scrape_compare.sh (N, ROUNDS, SCENARIOS, MATRIX) and
#        bench/daemon_cost.sh (DURATION, SCRAPE_INTERVAL, PHASES; the daemon step also runs
#        bench/tick_floor.sh and bench/http_hostile.sh) and
#        bench/pci_compare.sh (RUNS) and bench/pcap_compare.sh (PACKETS,
#        SMALL_PACKETS, TSHARK_PACKETS, ROUNDS, KEEP) and bench/capture_live.sh
#        (RATES, STEP, PAYLOAD, BUFFER_KB).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
BUILD=$SRC/build/bench
RESULTS=${RESULTS:-$BUILD/results}
STEPS=${STEPS:-"build machine micro scrape daemon pci pcap capture profile fleet"}
JOBS=${JOBS:-2}
REPS=${REPS:-5}
BIN=$BUILD/bottleneckd

has_step() { [[ " $STEPS " == *" $1 "* ]]; }
say() { echo "== $*" >&2; }

if has_step build; then
  say "build ($BUILD)"
  cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBOTTLENECKD_BENCH=ON -DBOTTLENECKD_TESTS=OFF >/dev/null
  cmake --build "$BUILD" --target bottleneckd parsers_bench pci_bench make_capture -j"$JOBS"
fi
[[ -x "$BIN" && -x "$BUILD/bench/parsers_bench" ]] || { echo "run.sh: build first (STEPS=build)" >&2; exit 1; }
mkdir -p "$RESULTS"

if has_step machine; then
  say "machine"
  {
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- nproc: $(nproc)"
    echo "- CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "- kernel: $(uname -r)"
    echo "- virtualisation: $(systemd-detect-virt 2>/dev/null || echo unknown);" \
      "hypervisor flag: $(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)"
    echo "- memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- compiler: $(c++ --version | head -n1)"
    echo "- node_exporter: $(prometheus-node-exporter --version 2>&1 | head -n1)"
    echo "- bottleneckd: $("$BIN" --version)"
  } | tee "$RESULTS/machine.md"
fi

if has_step micro; then
  say "microbenchmarks (parsers_bench, $REPS repetitions)"
  "$BUILD/bench/parsers_bench" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
    --benchmark_out="$RESULTS/parsers_bench.json" --benchmark_out_format=json \
    | tee "$RESULTS/parsers_bench.txt"
fi

if has_step scrape; then
  say "scrape comparison with node_exporter"
  OUT="$RESULTS/scrape_compare.md" bash "$HERE/scrape_compare.sh" "$BIN"
fi

if has_step daemon; then
  say "live daemon cost"
  OUT="$RESULTS/daemon_cost.md" bash "$HERE/daemon_cost.sh" "$BIN"
  say "the idle tick against its floor (live, vm, large-host)"
  : >"$RESULTS/tick_floor.md"
  for tree in "" vm large-host; do
    TREE=$tree bash "$HERE/tick_floor.sh" "$BIN" >>"$RESULTS/tick_floor.md"
  done
  say "HTTP under hostile clients, beside node_exporter"
  OUT="$RESULTS/http_hostile.md" bash "$HERE/http_hostile.sh" "$BIN"
  OUT="$RESULTS/http_hostile-2000.md" SLOWLORIS=1000 IDLE=1000 bash "$HERE/http_hostile.sh" "$BIN"
fi

if has_step pci; then
  say "PCI topology and bus model against lspci"
  OUT="$RESULTS/pci_compare.md" bash "$HERE/pci_compare.sh" "$BIN" "$BUILD/bench/pci_bench"
fi

if has_step pcap; then
  say "offline capture analysis against tcpdump and tshark"
  OUT="$RESULTS/pcap_compare.md" CAPDIR="$RESULTS" bash "$HERE/pcap_compare.sh" "$BIN" "$BUILD/bench/make_capture"
fi

if has_step capture; then
  say "live capture: zero-drop rate on a veth pair, against tcpdump"
  if [[ $(id -u) == 0 ]]; then
    OUT="$RESULTS/capture_live.md" bash "$HERE/capture_live.sh" "$BIN"
  else
    echo "run.sh: the capture step needs root (network namespace, veth, capture): skipped" >&2
  fi
fi

if has_step fleet; then
  say "the fleet: series and remote_write per host; 1000 simulated hosts over 24 h"
  bash "$HERE/fleet_series.sh" "$BIN" | tee "$RESULTS/fleet_series.md"
  bash "$HERE/fleet_scale.sh" "$BIN" | tee "$RESULTS/fleet_scale.md"
fi

if has_step profile; then
  # Instruction counts (callgrind) of `bottleneckd --once`: two ticks and one
  # exposition, on the large-host fixture and on this host.
  command -v valgrind >/dev/null || { echo "run.sh: valgrind missing, no profile" >&2; exit 1; }
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-prof-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  printf 'interval: 1s\n' >"$tmp/c.yaml"
  fx=$SRC/tests/fixtures/large-host
  for what in large-host live; do
    say "callgrind: bottleneckd --once ($what)"
    args=(--config.file="$tmp/c.yaml" --once)
    [[ "$what" == live ]] || args+=(--path.procfs="$fx/proc" --path.sysfs="$fx/sys" --path.ethtool="$fx/ethtool")
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$what" "$BIN" "${args[@]}" >/dev/null 2>"$tmp/vg.$what"
    {
      echo "# callgrind, bottleneckd --once ($what): inclusive instruction counts"
      callgrind_annotate --inclusive=yes "$tmp/cg.$what" 2>/dev/null | sed -n '1,60p'
      echo
      echo "# exclusive (self) instruction counts"
      callgrind_annotate "$tmp/cg.$what" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n '1,40p'
    } >"$RESULTS/profile-$what.txt"
    grep -m1 -E 'PROGRAM TOTALS|Ir' "$RESULTS/profile-$what.txt" >&2 || true
  done
fi

say "results in $RESULTS"
for f in machine.md parsers_bench.txt scrape_compare.md daemon_cost.md tick_floor.md http_hostile.md http_hostile-2000.md \
  pci_compare.md pcap_compare.md capture_live.md; do
  [[ -f "$RESULTS/$f" ]] || continue
  echo
  echo "### $f"
  cat "$RESULTS/$f"
done
