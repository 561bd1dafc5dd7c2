#!/usr/bin/env bash
# Soaker perturbation (issue 3, docs/performance-history.md "Soaker"): does the soaker
# slow a normal-priority workload? A fixed CPU-bound job (bench/duty.c `work`:
# MILLIONS million rounds of an integer chain, pinned to CPU) runs ROUNDS times
# with the soaker on (bottleneckd --soaker) and ROUNDS times with it off
# (bottleneckd without --soaker), alternating in ABBA order in one run so a
# drift in the machine's load falls on both. The daemon is restarted for each
# run (the calibration is kept in a state directory, measured once up front).
# Reported: the job's wall time and its own CPU time, median and mean per mode,
# and the throughput difference (on - off) / off of the medians.
#
# usage: bench/soaker_perturbation.sh [BOTTLENECKD_BINARY]
# env:   ROUNDS=8 MILLIONS=300 CPU=1 OUT=FILE
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
ROUNDS=${ROUNDS:-8}
MILLIONS=${MILLIONS:-300}
CPU=${CPU:-$(($(nproc) - 1))}
OUT=${OUT:-}
[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-perturb-XXXXXX")
DUTY=$BENCH_TMP/duty
cc -O3 -o "$DUTY" "$HERE/duty.c" -lm || bench_die "cannot build bench/duty.c"
printf 'interval: 1s\n' >"$BENCH_TMP/c.yaml"

one_run() {  # MODE (on|off): appends "MODE wall cpu loadavg" to $BENCH_TMP/runs
  local mode=$1 args=(--config.file="$BENCH_TMP/c.yaml" --path.state="$BENCH_TMP/state")
  [[ "$mode" == on ]] && args+=(--soaker)
  start_bottleneckd "$BIN" "$BENCH_TMP/bn.log" "${args[@]}"
  if [[ "$mode" == on ]]; then
    local i
    for ((i = 0; i < 100; i++)); do
      curl -fs "$BN_URL/metrics" | grep -q 'source="soaker"' && break
      sleep 0.2
    done
  else
    sleep 1.5
  fi
  local r
  r=$("$DUTY" work "$CPU" "$MILLIONS")
  echo "$mode $(awk '{print $2, $4}' <<<"$r") $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$BENCH_TMP/runs" >&2
  kill "$BN_PID"
  wait "$BN_PID" 2>/dev/null || true
  BENCH_PIDS=()
}

: >"$BENCH_TMP/runs"
# Calibrate once (not timed), then ABBA: off on on off, off on on off, ...
start_bottleneckd "$BIN" "$BENCH_TMP/bn.log" --config.file="$BENCH_TMP/c.yaml" --path.state="$BENCH_TMP/state" --soaker
sleep 3
kill "$BN_PID"; wait "$BN_PID" 2>/dev/null || true; BENCH_PIDS=()
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((k = 0; k < ROUNDS; k++)); do
  if ((k % 2 == 0)); then one_run off; one_run on; else one_run on; one_run off; fi
done

med() { sort -g "$1" | awk '{v[NR] = $1} END {printf "%.4f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
{
  echo "Fixed job: $MILLIONS M rounds pinned to cpu $CPU, $ROUNDS runs per mode (ABBA), $(date -u +%FT%TZ);" \
    "load average at start $load0, at end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| soaker | runs | wall s median | wall s mean | wall s min..max | job CPU s median |"
  echo "|---|---:|---:|---:|---|---:|"
  for mode in off on; do
    awk -v m="$mode" '$1 == m {print $2}' "$BENCH_TMP/runs" >"$BENCH_TMP/w.$mode"
    awk -v m="$mode" '$1 == m {print $3}' "$BENCH_TMP/runs" >"$BENCH_TMP/c.$mode"
    wmed=$(med "$BENCH_TMP/w.$mode")
    cmed=$(med "$BENCH_TMP/c.$mode")
    stats=$(sort -g "$BENCH_TMP/w.$mode" | awk '{s += $1; v[NR] = $1} END {printf "%.3f | %.3f..%.3f", s / NR, v[1], v[NR]}')
    echo "| $mode | $(wc -l <"$BENCH_TMP/w.$mode") | $wmed | $stats | $cmed |"
  done
  echo
  awk -v off="$(med "$BENCH_TMP/w.off")" -v on="$(med "$BENCH_TMP/w.on")" \
    -v coff="$(med "$BENCH_TMP/c.off")" -v con="$(med "$BENCH_TMP/c.on")" 'BEGIN {
    printf "Throughput with the soaker on vs off (medians): wall %+.2f %%, job CPU time %+.2f %%\n",
      100 * (off / on - 1), 100 * (coff / con - 1)}'
  echo
  echo "Runs in order (mode wall_s cpu_s load1):"
  echo
  sed 's/^/    /' "$BENCH_TMP/runs"
} | tee ${OUT:+"$OUT"}
