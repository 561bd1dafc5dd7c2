#!/usr/bin/env bash
# What offcpu's eBPF program (docs/offcpu.md) costs. It runs on every context
# switch of the host, so the load is context switches: bench/pingpong.c, two
# threads pinned to cpu1 passing a byte through two pipes (two context
# switches per round, each one thread away and the other back), a fixed
# number of rounds. Rounds
# alternate, the same load each time:
#   none      no daemon: no program loaded
#   loaded    the daemon with a target that matches no thread: the program
#             runs on every switch and follows nobody (the cost every other
#             task of a host pays while a target is configured)
#   followed  the daemon targeting the pingpong threads: every switch is a
#             target's (start and total updates; a stack walk for about
#             kOffCpuStacksPerSecond of each thread's periods a second)
# Then the stacks' walk: bench/sleeper.c, a thread sleeping 1 ms at a time
# (about 900 periods a second, so every period's kernel and user stacks are
# walked), SLEEPS periods, with the daemon loaded following nobody
# (sleep-loaded) and following it (sleep-followed): the programs'
# nanoseconds per period, whose difference is what following a thread with
# every stack walked costs (the walks most of it).
# Per round: the workload's time per round (its view: tracepoint dispatch
# included), and with the kernel's BPF run-time statistics
# (kernel.bpf_stats_enabled=1, which add two clock reads per run: an upper
# bound) the program's runs and nanoseconds per run; and the daemon's own
# time reading the maps per tick (bottleneckd_collector_duration_seconds of
# offcpu). Prints Markdown (docs/performance-history.md "offcpu"); nothing passes or
# fails.
#
# usage: bench/offcpu_overhead.sh BUILD_DIR   (the build's bottleneckd)
# env:   ROUNDS=3 PINGPONG_ROUNDS=400000 SLEEPS=4000
TEST_NAME=offcpu_overhead
BUILD=${1:?usage: bench/offcpu_overhead.sh BUILD_DIR}
SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS=${ROUNDS:-3}
PP_ROUNDS=${PINGPONG_ROUNDS:-400000}
SLEEPS=${SLEEPS:-4000}
BIN="$BUILD/bottleneckd"
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 900 "$@"
integ_init
integ_require_tools python3 curl bpftool sysctl cc mkfifo
[ -x "$BIN" ] || integ_die "$BIN missing: build $BUILD first"
cc -O2 -pthread -o "$INTEG_TMP/pingpong" "$SRC/bench/pingpong.c" || integ_die "building pingpong"
cc -O2 -fno-omit-frame-pointer -o "$INTEG_TMP/sleeper" "$SRC/bench/sleeper.c" || integ_die "building sleeper"
STATS_WAS="$(sysctl -n kernel.bpf_stats_enabled)"
trap 'rc=$?; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; (exit $rc); integ_cleanup' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# prog_stats: "run_cnt run_time_ns" of the loaded offcpu programs together:
# on_switch, on_waking (the waker: every wakeup of the host) and the timer
# and softirq brackets that tell a timer's wakeup from its task's.
prog_stats() {
  bpftool -j prog show | "$INTEG_PYTHON" -c '
import json, sys
names = {"on_switch", "on_waking", "on_hrtimer_entry", "on_hrtimer_exit", "on_softirq_entry", "on_softirq_exit"}
progs = [p for p in json.load(sys.stdin) if p.get("name", "") in names]
print(sum(p.get("run_cnt", 0) for p in progs), sum(p.get("run_time_ns", 0) for p in progs))'
}

# read_cost PORT: offcpu's mean read time per tick so far, in microseconds.
read_cost() {
  curl -sf -m 5 "http://127.0.0.1:$1/metrics" | awk '
    /^bottleneckd_collector_duration_seconds\{collector="offcpu"\}/ { d = $2 }
    /^bottleneckd_collector_success\{collector="offcpu"\}/ { ok = $2 }
    END { printf "%.1f %d\n", d * 1e6, ok }'
}

# threads_seen PORT [NAME]: whether the daemon reports the pingpong threads.
threads_seen() {
  curl -sf -m 5 "http://127.0.0.1:$1/metrics" |
    grep -q "^bottleneckd_thread_cpu_seconds_total{.*thread=\"${2:-pingpong}\""
}

rows=()
for ((r = 1; r <= ROUNDS; r++)); do
  for mode in none loaded followed sleep-loaded sleep-followed; do
    pid=""
    rm -f "$INTEG_TMP/go"
    mkfifo "$INTEG_TMP/go"
    workload=pingpong
    if [[ "$mode" == sleep-* ]]; then
      workload=sleeper
      "$INTEG_TMP/sleeper" "$SLEEPS" <"$INTEG_TMP/go" >"$INTEG_TMP/pp.out" 2>&1 &
    else
      "$INTEG_TMP/pingpong" 1 "$PP_ROUNDS" <"$INTEG_TMP/go" >"$INTEG_TMP/pp.out" 2>&1 &
    fi
    pp=$!
    exec 3>"$INTEG_TMP/go"
    if [ "$mode" != none ]; then
      target=$workload
      [[ "$mode" == *loaded ]] && target=no-such-thread
      printf 'collectors:\n  threads:\n    targets:\n      - name: %s\n' "$target" >"$INTEG_TMP/$mode.yaml"
      integ_start_bottleneckd PORT "$mode$r" "$BIN" --config.file="$INTEG_TMP/$mode.yaml"
      pid=$INTEG_LAST_PID
      grep -q 'msg="offcpu loaded' "$INTEG_TMP/bottleneckd-$mode$r.log" ||
        integ_die "offcpu did not load: $(grep offcpu "$INTEG_TMP/bottleneckd-$mode$r.log")"
      if [[ "$mode" == *followed ]]; then
        for ((i = 0; i < 50; i++)); do threads_seen "$PORT" "$workload" && break; sleep 0.2; done
        threads_seen "$PORT" "$workload" || integ_die "the daemon did not find the $workload threads"
        sleep 1.5  # the next tick follows them
      fi
    fi
    read -r c0 n0 < <(prog_stats)
    echo go >&3
    exec 3>&-
    wait "$pp" || integ_die "pingpong: $(cat "$INTEG_TMP/pp.out")"
    out="$(cat "$INTEG_TMP/pp.out")"
    read -r c1 n1 < <(prog_stats)
    cost="- -"
    if [ -n "$pid" ]; then
      sleep 2  # a tick after the threads' end
      cost="$(read_cost "$PORT")"
      kill -TERM "$pid"
      wait "$pid" 2>/dev/null
    fi
    rows+=("$mode $out $c0 $c1 $n0 $n1 $cost")
    integ_log "round $r $mode: $out"
  done
done

echo "## offcpu overhead: $(uname -r), $(nproc) CPUs, pingpong on cpu1, $PP_ROUNDS rounds (2 switches each)"
echo
printf '%s\n' "${rows[@]}" | "$INTEG_PYTHON" -c '
import sys
print("| round | program | ns per round (workload) | program runs per round | ns per run (bpf stats) | programs ns per round "
      "(bpf stats) | daemon read per tick |")
print("|---|---|---|---|---|---|---|")
by = {}
for i, line in enumerate(sys.stdin):
    f = line.split()
    mode, rounds, ns_round = f[0], int(f[2]), float(f[6])
    if mode.startswith("sleep-"):
        c0, c1, n0, n1 = (int(x) for x in f[7:11])
        by.setdefault(mode, []).append((n1 - n0) / rounds)
        continue
    c0, c1, n0, n1 = (int(x) for x in f[7:11])
    runs = (c1 - c0) / rounds
    per_run = (n1 - n0) / (c1 - c0) if c1 > c0 else float("nan")
    read = f[11] + " us" if f[11] != "-" else "-"
    prog_round = (n1 - n0) / rounds
    by.setdefault(mode, []).append((ns_round, per_run, prog_round))
    print("| %d | %s | %.0f | %s | %s | %s | %s |" % (i // 5 + 1, mode, ns_round,
          "%.1f" % runs if mode != "none" else "-", "%.0f" % per_run if mode != "none" else "-",
          "%.0f" % prog_round if mode != "none" else "-", read))
def mean(xs): return sum(xs) / len(xs)
base = mean([x[0] for x in by["none"]])
print()
for mode in ("loaded", "followed"):
    ns = mean([x[0] for x in by[mode]])
    print("%s: %.0f ns per round against %.0f without the programs (%+.0f ns, %+.1f %%; %.0f ns per switch), "
          "%.0f ns per run and %.0f ns of programs per round (2 switches, 2 wakeups) by the bpf statistics" % (
              mode, ns, base, ns - base, 100 * (ns / base - 1), (ns - base) / 2, mean([x[1] for x in by[mode]]),
              mean([x[2] for x in by[mode]])))
loaded, followed = mean(by["sleep-loaded"]), mean(by["sleep-followed"])
print("sleeper (every period walked): %.0f ns of programs per period following it, %.0f following nobody: "
      "%.0f ns per walked period (rounds: %s)" % (followed, loaded, followed - loaded,
      ", ".join("%.0f" % (f - l) for f, l in zip(by["sleep-followed"], by["sleep-loaded"]))))
'
