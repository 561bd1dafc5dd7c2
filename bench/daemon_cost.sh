#!/usr/bin/env bash
# Standing cost of the daemon on this host: bottleneckd live (/proc, /sys,
# ethtool through SIOCETHTOOL) at its default 1 s interval for DURATION seconds,
# with Debian's prometheus-node-exporter (default collectors) beside it as a
# reference. Both listen on 127.0.0.1 only.
#
# Two phases, each DURATION long, both exporters running together:
#   idle     nobody scrapes: bottleneckd still samples every second; node_exporter
#            only reads the kernel when scraped, so it does (almost) nothing.
#   scraped  each exporter is scraped once every SCRAPE_INTERVAL s by curl (a
#            Prometheus with a 1 s scrape interval), which is what node_exporter
#            costs when it is asked as often as bottleneckd samples.
# Reported: CPU % of one core = utime+stime (/proc/PID/stat) over the phase's
# wall time; peak RSS = VmHWM (/proc/PID/status) at the end of the phase.
# Targets (docs/performance.md): bottleneckd < 0.2 % of a core, < 20 MB.
#
# usage: bench/daemon_cost.sh [BOTTLENECKD_BINARY]
# env:   DURATION=120 SCRAPE_INTERVAL=1 PHASES="idle scraped" OUT=FILE
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
DURATION=${DURATION:-120}
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-1}
PHASES=${PHASES:-"idle scraped"}
OUT=${OUT:-}

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v prometheus-node-exporter >/dev/null || bench_die "prometheus-node-exporter is not installed"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")

ROWS=()

run_phase() {
  local phase=$1
  printf 'interval: 1s\n' >"$BENCH_TMP/bottleneckd.yaml"
  start_bottleneckd "$BIN" "$BENCH_TMP/bottleneckd.$phase.log" --config.file="$BENCH_TMP/bottleneckd.yaml"
  start_node_exporter "$BENCH_TMP/node_exporter.$phase.log"
  local names=("bottleneckd" "node_exporter 1.5 (defaults)")
  local pids=("$BN_PID" "$NE_PID") urls=("$BN_URL/metrics" "$NE_URL/metrics")
  sleep 2  # past start-up (first samples, Go runtime init)

  local k c0=() c1=() w0 w1 scrapes=0 failed=0
  for k in 0 1; do c0[k]=$(cpu_ticks "${pids[$k]}"); done
  w0=$(now)
  if [[ "$phase" == scraped ]]; then
    local end next
    end=$(awk -v a="$w0" -v d="$DURATION" 'BEGIN {printf "%.3f", a + d}')
    next=$w0
    while awk -v n="$next" -v e="$end" 'BEGIN {exit !(n < e)}'; do
      for k in 0 1; do
        curl -fs --max-time 10 -o /dev/null "${urls[$k]}" || failed=$((failed + 1))
      done
      scrapes=$((scrapes + 1))
      next=$(awk -v a="$next" -v i="$SCRAPE_INTERVAL" 'BEGIN {printf "%.3f", a + i}')
      local wait_s
      wait_s=$(awk -v n="$next" -v t="$(now)" 'BEGIN {d = n - t; printf "%.3f", (d > 0) ? d : 0}')
      sleep "$wait_s"
    done
  else
    sleep "$DURATION"
  fi
  w1=$(now)
  for k in 0 1; do c1[k]=$(cpu_ticks "${pids[$k]}"); done
  (( failed == 0 )) || echo "warning: $failed scrapes failed in phase $phase" >&2

  local wall samples
  wall=$(awk -v a="$w0" -v b="$w1" 'BEGIN {printf "%.1f", b - a}')
  samples=$(curl -fs --max-time 10 "$BN_URL/metrics" | awk '/^bottleneckd_samples_total / {print $2}')
  for k in 0 1; do
    local pct ms_per_s rss
    pct=$(awk -v c="$(( c1[k] - c0[k] ))" -v hz="$CLK_TCK" -v w="$wall" 'BEGIN {printf "%.3f", 100 * c / hz / w}')
    ms_per_s=$(awk -v c="$(( c1[k] - c0[k] ))" -v hz="$CLK_TCK" -v w="$wall" 'BEGIN {printf "%.2f", 1000 * c / hz / w}')
    rss=$(peak_rss_kb "${pids[$k]}")
    ROWS+=("| $phase | ${names[$k]} | $wall | $(( c1[k] - c0[k] )) | $ms_per_s | $pct | $(awk -v r="$rss" 'BEGIN {printf "%.1f", r / 1024}') | $scrapes |")
  done
  echo "daemon_cost: $phase: bottleneckd samples_total=$samples" >&2

  for k in 0 1; do kill "${pids[$k]}" 2>/dev/null || true; done
  for k in 0 1; do wait "${pids[$k]}" 2>/dev/null || true; done
  BENCH_PIDS=()
}

for p in $PHASES; do
  echo "daemon_cost: phase $p, ${DURATION}s" >&2
  run_phase "$p"
done

{
  echo "Live host, bottleneckd interval 1 s, CLK_TCK=$CLK_TCK; CPU from utime+stime, RSS = VmHWM."
  echo
  echo "| phase | process | wall s | CPU ticks | CPU ms per s | CPU % of one core | peak RSS MB | scrapes each |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
} | tee ${OUT:+"$OUT"}
