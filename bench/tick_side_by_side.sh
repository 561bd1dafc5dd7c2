#!/usr/bin/env bash
# Two builds' idle ticks side by side (issue 32, docs/performance-history.md "The
# idle tick's system calls cut"): both daemons run at once, over the same
# DURATION seconds, with bench/tick_floor.sh's configuration (1 s ticks,
# collectors only: soaker, irqtime, offcpu and profile off; nobody
# scraping), so that this VM's drift from hour to hour falls on both alike.
# CPU: every thread's on-CPU nanoseconds (schedstat), per tick and as a
# share of one core. ROUNDS rounds; Markdown on stdout. Nothing passes or
# fails.
#
# usage: bench/tick_side_by_side.sh BEFORE_BINARY AFTER_BINARY
# env:   DURATION=60 ROUNDS=1 TREE= (a fixture tree under tests/fixtures; live when empty)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
source "$HERE/lib.sh"

BEFORE=${1:?usage: bench/tick_side_by_side.sh BEFORE_BINARY AFTER_BINARY}
AFTER=${2:?usage: bench/tick_side_by_side.sh BEFORE_BINARY AFTER_BINARY}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-1}
TREE=${TREE:-}
for b in "$BEFORE" "$AFTER"; do [[ -x "$b" ]] || bench_die "no bottleneckd binary at $b"; done

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")
write_tick_config "$BENCH_TMP/bottleneckd.yaml"
tree_args=()
if [[ -n "$TREE" ]]; then
  FIX=$SRC/tests/fixtures/$TREE
  [[ -d "$FIX" ]] || bench_die "no fixture tree $FIX"
  tree_args=(--path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.ethtool="$FIX/ethtool")
fi

echo "| round | build | us a tick | % of one core |"
echo "|---|---|---|---|"
for ((r = 1; r <= ROUNDS; r++)); do
  pids=()
  for which in before after; do
    bin=$BEFORE
    [[ "$which" == after ]] && bin=$AFTER
    start_bottleneckd "$bin" "$BENCH_TMP/$which-$r.log" --config.file="$BENCH_TMP/bottleneckd.yaml" \
      --path.state="$BENCH_TMP/state-$which-$r" --control.socket="$BENCH_TMP/$which-$r.sock" "${tree_args[@]}"
    pids+=("$BN_PID")
  done
  sleep 3
  c0=() c1=()
  for p in "${pids[@]}"; do c0+=("$(cpu_ns "$p")"); done
  w0=$(now)
  sleep "$DURATION"
  for p in "${pids[@]}"; do c1+=("$(cpu_ns "$p")"); done
  w1=$(now)
  for i in 0 1; do
    name=before
    [[ $i == 1 ]] && name=after
    awk -v r="$r" -v n="$name" -v c="$((c1[i] - c0[i]))" -v w0="$w0" -v w1="$w1" \
      'BEGIN { w = w1 - w0; printf "| %d | %s | %.0f | %.3f %% |\n", r, n, c / 1e3 / w, c / 1e9 / w * 100 }'
  done
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
done
