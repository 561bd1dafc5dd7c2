#!/usr/bin/env bash
# What the on-CPU profiler (docs/profile.md) costs, beside perf's own
# sampler on the same load. The load: bench/spin.c on every CPU, a fixed
# number of rounds each, pinned; its time is what a sampler takes from it.
# Modes alternate, the same load each time:
#   none      no sampler
#   off       the daemon with the profiler off (its own ticks: the baseline
#             the profiler's cost is measured against)
#   p49, p99  the daemon with collectors.profile at 49 and 99 Hz and
#             stacks: all (every sample walked, kernel and user: the most it
#             does)
#   perf49    perf record -F 49 -a -g (the peer: frame-pointer call graphs
#             of every CPU, written to a file)
# Per mode: the load's time against `none` (percent of each CPU); with the
# kernel's BPF run-time statistics (kernel.bpf_stats_enabled=1, two clock
# reads per run added: an upper bound) the program's runs and nanoseconds per
# sample; the daemon's read per tick (bottleneckd_collector_duration_seconds
# of profile) and its resident memory against `off`; the maps' locked
# memory (bpftool). Prints Markdown (docs/performance-history.md "profile"); nothing
# passes or fails.
#
# usage: bench/profile_overhead.sh BUILD_DIR   (the build's bottleneckd)
# env:   ROUNDS=3 SPIN_ROUNDS=300000 (about 9 s of load per mode on this VM)
TEST_NAME=profile_overhead
BUILD=${1:?usage: bench/profile_overhead.sh BUILD_DIR}
SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS=${ROUNDS:-3}
SPIN_ROUNDS=${SPIN_ROUNDS:-300000}
BIN="$BUILD/bottleneckd"
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 1200 "$@"
integ_init
integ_require_tools python3 curl bpftool sysctl cc perf
[ -x "$BIN" ] || integ_die "$BIN missing: build $BUILD first"
cc -O2 -fno-omit-frame-pointer -o "$INTEG_TMP/spin" "$SRC/bench/spin.c" || integ_die "building spin"
STATS_WAS="$(sysctl -n kernel.bpf_stats_enabled)"
trap 'rc=$?; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; (exit $rc); integ_cleanup' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
CPUS=$(nproc)

# prog_stats: "run_cnt run_time_ns" of the loaded profile program (on_sample).
prog_stats() {
  bpftool -j prog show | "$INTEG_PYTHON" -c '
import json, sys
progs = [p for p in json.load(sys.stdin) if p.get("name", "") == "on_sample"]
print(sum(p.get("run_cnt", 0) for p in progs), sum(p.get("run_time_ns", 0) for p in progs))'
}
# maps_bytes: the locked memory of the profile program's maps.
maps_bytes() {
  bpftool -j map show | "$INTEG_PYTHON" -c '
import json, sys
names = {"counts", "stacks", "walk_cpus", "walk_tids", "drops", "profile_.bss"}
print(sum(m.get("bytes_memlock", 0) for m in json.load(sys.stdin) if m.get("name", "") in names))'
}
# read_cost PORT: the profile source's mean read per tick so far (us).
read_cost() {
  curl -sf -m 5 "http://127.0.0.1:$1/metrics" | awk '
    /^bottleneckd_collector_duration_seconds\{collector="profile"\}/ { d = $2 }
    END { printf "%.1f\n", d * 1e6 }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# cpu_ms PID: the process's user + system time so far, in milliseconds
# (its own work: the daemon's reads and naming, perf's writing; not the
# samples' time in the kernel, which the BPF statistics count for ours).
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / hz }' "/proc/$1/stat"; }

# spin_all: the load on every CPU at once; prints the mean ns per CPU.
spin_all() {
  local c pids=()
  for ((c = 0; c < CPUS; c++)); do
    "$INTEG_TMP/spin" "$c" "$SPIN_ROUNDS" >"$INTEG_TMP/spin.$c" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || integ_die "spin failed"; done
  cat "$INTEG_TMP"/spin.* | awk '{ s += $1; n++ } END { printf "%.0f\n", s / n }'
}

rows=()
for ((r = 1; r <= ROUNDS; r++)); do
  for mode in none off p49 p99 perf49; do
    pid="" perf_pid=""
    case "$mode" in
      off) printf 'collectors:\n  profile:\n    mode: "off"\n' >"$INTEG_TMP/$mode.yaml" ;;
      p49 | p99)
        printf 'collectors:\n  profile:\n    mode: "on"\n    frequency: %s\n    stacks: all\n' "${mode#p}" \
          >"$INTEG_TMP/$mode.yaml" ;;
    esac
    if [ -f "$INTEG_TMP/$mode.yaml" ]; then
      integ_start_bottleneckd PORT "$mode$r" "$BIN" --config.file="$INTEG_TMP/$mode.yaml"
      pid=$INTEG_LAST_PID
      sleep 2.5  # past the start and the first ticks
    elif [ "$mode" = perf49 ]; then
      perf record -F 49 -a -g -q -o "$INTEG_TMP/perf.data" -- sleep 3600 >"$INTEG_TMP/perf.log" 2>&1 &
      perf_pid=$!
      sleep 1.5
    fi
    watched=${pid:-$perf_pid}
    ms0=0
    [ -n "$watched" ] && ms0=$(cpu_ms "$watched")
    t0=$(date +%s%N)
    read -r c0 n0 < <(prog_stats)
    ns=$(spin_all)
    read -r c1 n1 < <(prog_stats)
    wall=$(($(date +%s%N) - t0))
    own="-"
    [ -n "$watched" ] && own=$(($(cpu_ms "$watched") - ms0))
    read_us="-" rss="-" maps="-"
    if [ -n "$pid" ]; then
      sleep 1.2
      read_us=$(read_cost "$PORT")
      rss=$(rss_kb "$pid")
      [ "$mode" = off ] || maps=$(maps_bytes)
      kill -TERM "$pid"
      wait "$pid" 2>/dev/null
    fi
    if [ -n "$perf_pid" ]; then
      pkill -INT -P "$perf_pid" sleep 2>/dev/null
      kill -INT "$perf_pid" 2>/dev/null
      wait "$perf_pid" 2>/dev/null
      maps=$(stat -c %s "$INTEG_TMP/perf.data" 2>/dev/null || echo 0)
    fi
    rows+=("$mode $ns $c0 $c1 $n0 $n1 $read_us $rss $maps $wall $own")
    integ_log "round $r $mode: $ns ns per CPU"
  done
done

echo "## profile overhead: $(uname -r), $CPUS CPUs, spin on each, $SPIN_ROUNDS rounds, $ROUNDS rounds of modes"
echo
printf '%s\n' "${rows[@]}" | "$INTEG_PYTHON" -c '
import sys
by = {}
for line in sys.stdin:
    f = line.split()
    by.setdefault(f[0], []).append(f[1:])
def mean(xs): return sum(xs) / len(xs)
base = mean([float(x[0]) for x in by["none"]])
print("| mode | load time per CPU (mean) | vs none | samples per CPU-second | ns per sample (bpf stats) | in the kernel, % of a CPU | own CPU of the daemon or perf, % of a CPU | daemon read per tick | daemon RSS | maps / perf.data |")
print("|---|---|---|---|---|---|---|---|---|---|")
for mode in ("none", "off", "p49", "p99", "perf49"):
    rs = by[mode]
    ns = mean([float(x[0]) for x in rs])
    runs = [int(x[2]) - int(x[1]) for x in rs]
    tns = [int(x[4]) - int(x[3]) for x in rs]
    ours = mode in ("p49", "p99")
    cpus = int(sys.argv[1])
    wall = sum(float(x[8]) for x in rs) / 1e9  # seconds between the two statistics reads
    per_sample = "%.0f" % (sum(tns) / sum(runs)) if ours and sum(runs) > 0 else "-"
    rate = "%.1f" % (sum(runs) / wall / cpus) if ours else "-"
    kernel = "%.3f" % (100 * sum(tns) / 1e9 / wall / cpus) if ours else "-"
    own = "%.3f" % (100 * sum(float(x[9]) for x in rs) / 1e3 / wall) if rs[0][9] != "-" else "-"
    read = (mean([float(x[5]) for x in rs]) if rs[0][5] != "-" else None)
    rss = (mean([float(x[6]) for x in rs]) if rs[0][6] != "-" else None)
    extra = (mean([float(x[7]) for x in rs]) if rs[0][7] != "-" else None)
    print("| %s | %.3f s | %+.2f %% | %s | %s | %s | %s | %s | %s | %s |" % (
        mode, ns / 1e9, 100 * (ns / base - 1), rate, per_sample, kernel, own,
        "%.0f us" % read if read is not None else "-", "%.1f MB" % (rss / 1024) if rss is not None else "-",
        "%.0f KiB" % (extra / 1024) if extra is not None else "-"))
' "$CPUS"
