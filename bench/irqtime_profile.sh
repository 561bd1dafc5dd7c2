#!/usr/bin/env bash
# Where irqtime's per-event cost goes (issue 32, docs/performance-history.md
# "irqtime: where an event's time goes"): a sender pinned to cpu1 sends
# 64-byte datagrams on loopback as fast as it can for SECONDS (each one runs
# a NET_RX softirq on cpu1: an entry and an exit event), bottleneckd runs
# with collectors.irqtime.mode: on, and `perf record -a -C 1 -g` samples
# cpu1 throughout. Prints the sender's rate, the share of cpu1 under the
# tracepoint's BPF dispatch (bpf_trace_run1, inclusive), the share of that
# in the clock read (ktime_get_mono_fast_ns, inclusive) and the rest, and
# nanoseconds per event from the share and the event rate. Needs root
# (eBPF, perf -a). Nothing passes or fails.
#
# usage: bench/irqtime_profile.sh BOTTLENECKD   env: SECONDS_TO_SEND=4
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.sh"

BIN=${1:?usage: bench/irqtime_profile.sh BOTTLENECKD}
SEND=${SECONDS_TO_SEND:-4}
[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN"
for t in perf taskset cc; do command -v "$t" >/dev/null || bench_die "$t missing"; done
[[ $(nproc) -ge 2 ]] || bench_die "needs two CPUs (the sender on cpu1)"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")
cc -O2 -o "$BENCH_TMP/udp_blast" "$HERE/udp_blast.c" || bench_die "cannot build bench/udp_blast.c"
printf 'collectors:\n  irqtime:\n    mode: "on"\n' >"$BENCH_TMP/on.yaml"
port=$(free_port)
"$BENCH_TMP/udp_blast" hold "$port" $((SEND + 30)) >/dev/null 2>&1 &
BENCH_PIDS+=("$!")
start_bottleneckd "$BIN" "$BENCH_TMP/daemon.log" --config.file="$BENCH_TMP/on.yaml" \
  --path.state="$BENCH_TMP/state" --control.socket="$BENCH_TMP/control.sock"
grep -q "irqtime loaded" "$BENCH_TMP/daemon.log" || bench_die "irqtime did not load: $(grep irqtime "$BENCH_TMP/daemon.log")"
sleep 2
out=$(perf record -q -F 4999 -a -C 1 -g -o "$BENCH_TMP/perf.data" -- \
  taskset -c 1 "$BENCH_TMP/udp_blast" send 127.0.0.1 "$port" 0 1000000000 "$SEND" 64 2>/dev/null)
rate=$(sed -n 's/.*rate=\([0-9]*\).*/\1/p' <<<"$out")
[[ -n "$rate" ]] || bench_die "the sender printed no rate: $out"
share() {  # inclusive share (%) of symbol $1 on cpu1
  perf report -i "$BENCH_TMP/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
    awk -v s="$1" '$NF == s && !seen { gsub("%", "", $1); print $1; seen = 1 }'
}
dispatch=$(share bpf_trace_run1)
clock=$(share ktime_get_mono_fast_ns)
echo "## irqtime per event, $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo
awk -v rate="$rate" -v d="${dispatch:-0}" -v c="${clock:-0}" 'BEGIN {
  ev = 2 * rate  # a softirq entry and exit per datagram
  printf "| datagrams/s on cpu1 | events/s | cpu1 in the BPF dispatch | of which the clock read | ns/event | of which the clock | at 100 k events/s |\n"
  printf "|---|---|---|---|---|---|---|\n"
  ns = d / 100 * 1e9 / ev
  printf "| %d | %d | %.2f %% | %.2f %% (%.0f %% of it) | %.0f | %.0f | %.2f %% of a CPU |\n", rate, ev, d, c, (d > 0 ? 100 * c / d : 0), ns, c / 100 * 1e9 / ev, ns * 1e5 / 1e9 * 100
}'
