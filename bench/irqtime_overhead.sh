#!/usr/bin/env bash
# What irqtime's eBPF program costs, measured under the highest interrupt
# rate the echo lab reaches on this machine: 64-byte datagrams flat out from
# cpu0 to the echo server (K=0, cpu0), RPS steering the box's receive work to
# cpu1 (tests/echo_lab/irqtime_lab_test.sh's load). Rounds alternate, the
# same load each time, with the daemon in the box (soaker always on):
#   off  collectors.irqtime.mode: off   (no program loaded)
#   on   collectors.irqtime.mode: on, with the kernel's BPF run-time stats
#        (kernel.bpf_stats_enabled=1) so each program's run count and run
#        time are read from bpftool
# Per round: the generator's echoed rate, the soaker's lost cycles on cpu1,
# and (on) the events per second, nanoseconds per event and share of one CPU
# spent in the program. The run-time stats themselves add two clock reads per
# event, so ns/event is an upper bound.
# Then the workload's view, without those statistics: a UDP sender pinned to
# cpu1 sends 64-byte datagrams on loopback as fast as it can (each one runs
# NET_RX on the sending CPU), in alternating rounds with the program off and
# on; the cost per event is the difference in time per datagram divided by
# the events per datagram the program counted (each handler run counted once
# is two tracepoint events: entry and exit).
# Prints Markdown tables (docs/performance-history.md "irqtime"); nothing passes or
# fails.
#
# usage: bench/irqtime_overhead.sh BUILD_DIR   (the build's bottleneckd and tests/lab_*)
# env:   ROUNDS=3 SECONDS_PER_ROUND=8 LOOPBACK_ROUNDS=6 LOOPBACK_SECONDS=3
TEST_NAME=irqtime_overhead
BUILD=${1:?usage: bench/irqtime_overhead.sh BUILD_DIR}
SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS=${ROUNDS:-3}
ROUND_SECONDS=${SECONDS_PER_ROUND:-8}
BIN="$BUILD/bottleneckd"
LAB_SERVER="$BUILD/tests/lab_echo_server"
LAB_GEN="$BUILD/tests/lab_load_gen"
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 1800 "$@"
integ_init
integ_require_tools python3 ip curl bpftool sysctl
# shellcheck source=tests/echo_lab/lab.sh
. "$SRC/tests/echo_lab/lab.sh"
for f in "$BIN" "$LAB_SERVER" "$LAB_GEN"; do [ -x "$f" ] || integ_die "$f missing: build $BUILD first"; done
lab_up
STATS_WAS="$(sysctl -n kernel.bpf_stats_enabled)"
trap 'rc=$?; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; lab_down; (exit $rc); integ_cleanup' EXIT
lab_rps 2

# prog_stats: "run_cnt run_time_ns" summed over irqtime's loaded programs.
prog_stats() {
  bpftool -j prog show | "$INTEG_PYTHON" -c '
import json, sys
progs = [p for p in json.load(sys.stdin) if p.get("name", "").startswith(("btf_", "raw_"))
         and ("irq" in p["name"] or "softirq" in p["name"])]
print(sum(p.get("run_cnt", 0) for p in progs), sum(p.get("run_time_ns", 0) for p in progs))'
}

# soaker_counters PORT: cpu1's soaker iterations and calibrated rate.
soaker_counters() {
  lab_box curl -sf -m 5 "http://127.0.0.1:$1/metrics" | awk '
    /^bottleneckd_soaker_iterations_total\{cpu="1"\}/ { it = $2 }
    /^bottleneckd_soaker_calibration_iterations_per_second\{cpu="1"\}/ { rate = $2 }
    END { print it + 0, rate + 0 }'
}

rows=()
for ((r = 1; r <= ROUNDS; r++)); do
  for mode in off on; do
    name="$mode$r"
    printf 'soaker:\n  mode: always\ncollectors:\n  irqtime:\n    mode: "%s"\n' "$mode" >"$INTEG_TMP/$name.yaml"
    [ "$mode" = on ] && sysctl -qw kernel.bpf_stats_enabled=1
    lab_start_daemon PORT "$name" --config.file="$INTEG_TMP/$name.yaml"
    pid=$INTEG_LAST_PID
    sleep 3
    lab_server_start 0 0 $((ROUND_SECONDS + 20))
    sleep 1
    read -r it0 rate < <(soaker_counters "$PORT")
    read -r cnt0 ns0 < <(prog_stats)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    $(lab_gen_cmd 64 0 "$ROUND_SECONDS" 0) >"$INTEG_TMP/$name.gen" 2>&1
    t1=$(date +%s.%N)
    read -r it1 _ < <(soaker_counters "$PORT")
    read -r cnt1 ns1 < <(prog_stats)
    lab_server_stop
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
    echoed=$(awk '/^step/ { for (i = 1; i <= NF; i++) if ($i ~ /^echoed=/) { sub("echoed=", "", $i); e += $i } } END { print e + 0 }' "$INTEG_TMP/$name.gen")
    rows+=("$mode $t0 $t1 $it0 $it1 $rate $cnt0 $cnt1 $ns0 $ns1 $echoed")
    integ_log "round $name done"
  done
done

echo "## irqtime overhead: $(uname -r), $(nproc) CPUs, 64-byte datagrams flat out, RPS to cpu1, ${ROUND_SECONDS} s rounds"
echo
printf '%s\n' "${rows[@]}" | "$INTEG_PYTHON" -c '
import sys
print("| round | program | echoed/s | cpu1 soaker lost | events/s | ns/event | program CPU (of one CPU) |")
print("|---|---|---|---|---|---|---|")
by = {"off": [], "on": []}
for i, line in enumerate(sys.stdin):
    mode, t0, t1, it0, it1, rate, c0, c1, n0, n1, echoed = line.split()
    span = float(t1) - float(t0)
    lost = 1 - (float(it1) - float(it0)) / (float(rate) * span) if float(rate) > 0 else float("nan")
    ev = (int(c1) - int(c0)) / span
    ns = (int(n1) - int(n0)) / max(1, int(c1) - int(c0))
    share = (int(n1) - int(n0)) / span / 1e9
    by[mode].append((float(echoed) / span, lost, ev, ns, share))
    cells = ["%.0f" % ev, "%.0f" % ns, "%.3f %%" % (100 * share)] if mode == "on" else ["-", "-", "-"]
    print("| %d | %s | %.0f | %.1f %% | %s |" % (i // 2 + 1, mode, float(echoed) / span, 100 * lost, " | ".join(cells)))
def mean(xs): return sum(xs) / len(xs) if xs else float("nan")
off, on = by["off"], by["on"]
print()
print("mean echoed/s off %.0f, on %.0f (%+.1f %%); cpu1 soaker lost off %.1f %%, on %.1f %%" % (
    mean([x[0] for x in off]), mean([x[0] for x in on]),
    100 * (mean([x[0] for x in on]) / mean([x[0] for x in off]) - 1),
    100 * mean([x[1] for x in off]), 100 * mean([x[1] for x in on])))
print("program: %.0f events/s, %.0f ns/event, %.3f %% of one CPU; at 100 k events/s that is %.2f %% of a CPU" % (
    mean([x[2] for x in on]), mean([x[3] for x in on]), 100 * mean([x[4] for x in on]),
    100 * mean([x[3] for x in on]) * 1e5 / 1e9))
'

# ---- the workload's view: loopback sends on one CPU, program off and on ----
LOOPBACK_ROUNDS=${LOOPBACK_ROUNDS:-6}
LOOPBACK_SECONDS=${LOOPBACK_SECONDS:-3}
cc -O2 -o "$INTEG_TMP/udp_blast" "$SRC/bench/udp_blast.c" || integ_die "cannot build bench/udp_blast.c"
LPORT=$(integ_free_port)
"$INTEG_TMP/udp_blast" hold "$LPORT" $((LOOPBACK_ROUNDS * 2 * (LOOPBACK_SECONDS + 10) + 30)) >/dev/null 2>&1 &
INTEG_PIDS+=("$!")
printf 'collectors:\n  irqtime:\n    mode: "on"\n' >"$INTEG_TMP/lo-on.yaml"
# cpu1's handler runs (hardirq + softirq, each an entry and an exit event)
# from the daemon's metrics.
events() {
  curl -sf -m 5 "http://127.0.0.1:$1/metrics" | awk '
    /^bottleneckd_irqtime_interrupts_total\{cpu="1",/ { n += $2 } END { printf "%.0f\n", n }'
}
lrows=()
for ((r = 1; r <= LOOPBACK_ROUNDS; r++)); do
  for mode in off on; do
    pid=""
    if [ "$mode" = on ]; then
      integ_start_bottleneckd LPORTM "lo$r" "$BIN" --config.file="$INTEG_TMP/lo-on.yaml"
      pid=$INTEG_LAST_PID
      sleep 1.5
      e0=$(events "$LPORTM")
    fi
    out=$(taskset -c 1 "$INTEG_TMP/udp_blast" send 127.0.0.1 "$LPORT" 0 100000000 "$LOOPBACK_SECONDS" 64)
    if [ -n "$pid" ]; then
      sleep 1.2  # the daemon's next tick has the counts
      e1=$(events "$LPORTM")
      kill -TERM "$pid"
      wait "$pid" 2>/dev/null
    else
      e0=0 e1=0
    fi
    lrows+=("$mode $(sed -n 's/.*sent=\([0-9]*\).*seconds=\([0-9.]*\).*/\1 \2/p' <<<"$out") $e0 $e1")
  done
done
echo
echo "## loopback sends pinned to cpu1, 64-byte datagrams, ${LOOPBACK_SECONDS} s rounds (no run-time statistics)"
echo
printf '%s\n' "${lrows[@]}" | "$INTEG_PYTHON" -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
print("| round | program | datagrams/s | ns/datagram | cpu1 handler runs/datagram |")
print("|---|---|---|---|---|")
off, on, per = [], [], []
for i, (mode, sent, secs, e0, e1) in enumerate(rows):
    rate = int(sent) / float(secs)
    ns = 1e9 / rate
    cells = "-"
    if mode == "on":
        epd = (int(e1) - int(e0)) / int(sent)
        per.append(epd)
        cells = "%.2f" % epd
        on.append(ns)
    else:
        off.append(ns)
    print("| %d | %s | %.0f | %.0f | %s |" % (i // 2 + 1, mode, rate, ns, cells))
d = statistics.median(on) - statistics.median(off)
epd = statistics.median(per)
print()
ev = 2 * epd  # an entry and an exit per run
print("median ns/datagram off %.0f, on %.0f: %+.0f ns per datagram, %.2f handler runs (%.2f events) per "
      "datagram, the daemon ticks included: %.0f ns per event; at 100 k events/s %.2f %% of a CPU" % (
      statistics.median(off), statistics.median(on), d, epd, ev, d / ev, d / ev * 1e5 / 1e9 * 100))
'
