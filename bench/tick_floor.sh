#!/usr/bin/env bash
# One idle tick against its physical floor (issue 32). bottleneckd samples at
# 1 s with its collectors only (soaker, irqtime, offcpu and profile off: their
# costs are measured by soaker_perturbation.sh, irqtime_overhead.sh,
# offcpu_overhead.sh and profile_overhead.sh), nobody scraping, on this host or
# on a fixture tree (TREE=vm, large-host, ...). Measured:
#   tick CPU    the daemon's threads' on-CPU time (schedstat) over DURATION s,
#               per tick
#   syscalls    an strace of TRACE s (after the CPU phase): per tick
#   floor       the files those ticks read (each open, and each pread at
#               offset 0 of a kept descriptor, is one read of a file; a
#               directory opened is one listing; live, the driver statistics
#               of every interface, as SIOCETHTOOL ioctls), read bare by
#               bench/tick_floor.c ITER times over:
#               open, pread to the end, close; no parsing
#   ratio       tick CPU / floor (goal: at most 2)
# Not part of the test suite: nothing here passes or fails on a time.
#
# usage: bench/tick_floor.sh [BOTTLENECKD_BINARY]
# env:   TREE= (a fixture tree; live by default) DURATION=60 TRACE=10 ITER=200 OUT=FILE
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
TREE=${TREE:-}
DURATION=${DURATION:-60}
TRACE=${TRACE:-10}
ITER=${ITER:-200}
OUT=${OUT:-}

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v strace >/dev/null || bench_die "strace is not installed"
command -v cc >/dev/null || bench_die "no C compiler (cc) for bench/tick_floor.c"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")
cc -O2 -o "$BENCH_TMP/tick_floor" "$HERE/tick_floor.c" || bench_die "cannot build bench/tick_floor.c"

write_tick_config "$BENCH_TMP/bottleneckd.yaml"
ARGS=(--config.file="$BENCH_TMP/bottleneckd.yaml" --path.state="$BENCH_TMP/state"
  --control.socket="$BENCH_TMP/control.sock")
if [[ -n "$TREE" ]]; then
  FIX=$SRC/tests/fixtures/$TREE
  [[ -d "$FIX" ]] || bench_die "no fixture tree $FIX"
  ARGS+=(--path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.ethtool="$FIX/ethtool")
fi
start_bottleneckd "$BIN" "$BENCH_TMP/daemon.log" "${ARGS[@]}"
sleep 3
# On-CPU nanoseconds of every thread (schedstat's first field): clock ticks
# of 10 ms would be 170 us of resolution per tick over a minute.
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%d", s}'; }
c0=$(cpu_ns "$BN_PID"); w0=$(now)
sleep "$DURATION"
c1=$(cpu_ns "$BN_PID"); w1=$(now)
strace -f -qq -y -e trace=openat,pread64,read,getdents64,ioctl -o "$BENCH_TMP/trace" -p "$BN_PID" &
ST=$!
BENCH_PIDS+=("$ST")
sleep "$TRACE"
kill -INT "$ST"; wait "$ST" 2>/dev/null || true

python3 - "$BENCH_TMP/trace" "$TRACE" "$BENCH_TMP/list" "${TREE:-live}" >"$BENCH_TMP/summary" <<'PY'
import collections, os, re, sys
trace, seconds, out, live = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4] == "live"
ticks = max(1, round(seconds))  # 1 s interval
files = collections.Counter()
calls = collections.Counter()
open_re = re.compile(r'openat\(AT_FDCWD(?:<[^>]*>)?, "([^"]+)", ([A-Z_|]+)[^)]*\) = \d+')
pread_re = re.compile(r'pread64\(\d+<([^>]+)>, .*, (\d+)\) = \d+$')
for line in open(trace):
    m = re.match(r'\d+\s+(\w+)\(', line)
    if m:
        calls[m.group(1)] += 1
    m = open_re.search(line)
    if m:
        files[("dir" if "O_DIRECTORY" in m.group(2) else "file", m.group(1))] += 1
        continue
    m = pread_re.search(line)
    if m and m.group(2) == "0":
        files[("file", m.group(1))] += 1
        continue
# strace does not decode SIOCETHTOOL's interface: on a live host, every
# interface in the listing gets the statistics reads the netdev collector
# makes each tick (the floor tool asks the driver for its statistics count,
# then the statistics where there are any).
if live and calls["ioctl"]:
    for name in os.listdir("/sys/class/net"):
        files[("ethtool", name)] += ticks
with open(out, "w") as f:
    for (kind, path), n in sorted(files.items()):
        f.write("%d %s %s\n" % (n, kind, path))
kinds = collections.Counter()
for (kind, _), n in files.items():
    kinds[kind] += n
print("TICKS=%d" % ticks)
print("CALLS='%s'" % ", ".join("%s %.1f" % (k, v / ticks) for k, v in calls.most_common()))
print("READS='%s'" % ", ".join("%s %.1f" % (k, v / ticks) for k, v in sorted(kinds.items())))
PY
# shellcheck disable=SC1091
source "$BENCH_TMP/summary"
FLOOR_US=$("$BENCH_TMP/tick_floor" "$BENCH_TMP/list" "$TICKS" "$ITER")
TICK_US=$(awk -v c="$((c1 - c0))" -v w0="$w0" -v w1="$w1" 'BEGIN {printf "%.1f", c / 1e3 / (w1 - w0)}')
{
  echo "| ${TREE:-live} | $TICK_US us | $FLOOR_US us | $(awk -v a="$TICK_US" -v b="$FLOOR_US" 'BEGIN {printf "%.2f", a / b}') |" \
    "$(awk -v a="$TICK_US" 'BEGIN {printf "%.3f", a / 1e4}') % | $READS | $CALLS |"
} | tee ${OUT:+"$OUT"}
