#!/usr/bin/env bash
# Soaker accuracy (issue 3, docs/performance-history.md "Soaker"): bottleneckd runs with
# the soaker at interval WINDOW (10 s) while bench/duty.c loads one CPU at a time
# with a known duty cycle (busy-spin / sleep, 9.73 ms period). For each CPU and
# duty one whole window is read from /metrics; reported per cell: soaker
# busy, accounting busy (/proc/stat busy minus the soaker's own time), hidden
# time, the load's own CPU share (its thread clock) and their errors against the
# nominal duty. Accounting busy is /proc/stat's view: what it shows above the
# load's share is other processes on that CPU (noise, rightly busy), not error.
#
# Then, if FLOOD_SECONDS > 0, a bounded UDP flood on loopback (python3 sender and
# receiver, each pinned to one CPU, stopping after FLOOD_SECONDS) and the same
# figures for every CPU.
#
# The harness keeps out of the measurement: while a CPU is measured, this
# script's own processes are moved to another CPU (taskset on the shell), and
# during the measured window it runs nothing at all (it waits with bash's `read
# -t`, no process). On the development VM, processes started on one vCPU cost
# the *other* vCPU cycles (the host's work for the guest's page tables): 8 curl
# scrapes a second from cpu1 read as 8.7 % hidden time on an idle cpu0, and
# slowed a separate spinning process on cpu0 by 6.5 %. The daemon itself is not
# pinned (its soaker threads pin themselves within its affinity mask).
#
# RECALIBRATE=cell (default) measures the calibration again right before each
# cell, with no load running: the daemon runs with soaker.calibration_max_age 1s
# and is sent SIGHUP, which restarts its soaker, which finds the stored
# calibration stale and measures it again (what a run gets with that setting).
# RECALIBRATE=once keeps the one calibration made at the daemon's start for
# every cell: the error then includes how far the host's speed for the loop
# drifted since (a VM's host changes it by several percent over minutes). The
# calibrated rate of the measured CPU is in each row either way.
#
# usage: bench/soaker_accuracy.sh [BOTTLENECKD_BINARY]
# env:   DUTIES="0 25 50 75 90 100" CPUS="0 1" WINDOW=10 (seconds) SETTLE=2
#        RECALIBRATE=cell|once PERCENTILE=auto|1-99 (soaker.calibration_percentile)
#        FLOOD_SECONDS=25 (at least 2 x WINDOW + 2) FLOOD_PPS=50000 (datagrams a second, 0 = flat out) STATE=DIR (soaker state dir: keep or pre-write the
#        calibration; default a fresh temporary one) OUT=FILE (markdown)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
DUTIES=${DUTIES:-"0 25 50 75 90 100"}
CPUS=${CPUS:-$(seq -s' ' 0 $(($(nproc) - 1)))}
WINDOW=${WINDOW:-10}
SETTLE=${SETTLE:-2}
FLOOD_SECONDS=${FLOOD_SECONDS:-25}
FLOOD_PPS=${FLOOD_PPS:-50000}
RECALIBRATE=${RECALIBRATE:-cell}
PERCENTILE=${PERCENTILE:-auto}
OUT=${OUT:-}
[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-soak-XXXXXX")
STATE=${STATE:-$BENCH_TMP/state}
DUTY=$BENCH_TMP/duty
cc -O3 -o "$DUTY" "$HERE/duty.c" -lm || bench_die "cannot build bench/duty.c"

case $RECALIBRATE in
  cell) max_age=1s ;;
  once) max_age=3650d ;;
  *) bench_die "RECALIBRATE must be cell or once" ;;
esac
((FLOOD_SECONDS == 0 || FLOOD_SECONDS >= 2 * WINDOW + 2)) || bench_die "FLOOD_SECONDS must be 0 or at least 2 x WINDOW + 2"
printf 'interval: %ss\nsoaker:\n  calibration_max_age: %s\n  calibration_percentile: %s\n' "$WINDOW" "$max_age" \
  "$PERCENTILE" >"$BENCH_TMP/c.yaml"
start_bottleneckd "$BIN" "$BENCH_TMP/bn.log" --config.file="$BENCH_TMP/c.yaml" --soaker \
  --path.state="$STATE"
for ((i = 0; i < 100; i++)); do
  curl -fs "$BN_URL/metrics" | grep -q 'source="soaker"' && break
  sleep 0.2
done
echo "soaker_accuracy: daemon up at $BN_URL, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
grep -h '^cpu ' "$STATE/soaker-calibration" >&2 || true

# metric_value NAME CPU: the value of NAME{cpu="CPU"} now ("" if absent).
metric_value() {
  curl -fs --max-time 5 "$BN_URL/metrics" | awk -v m="$1{cpu=\"$2\"}" '$1 == m {print $2}'
}

# recalibrate: SIGHUP restarts the soaker, which measures a new calibration
# (max age 1s); waits (bounded) until the new one is exported and windows flow.
recalibrate() {
  local cpu=$1 before i
  before=$(metric_value bottleneckd_soaker_calibration_timestamp_seconds "$cpu")
  kill -HUP "$BN_PID"
  for ((i = 0; i < 100; i++)); do
    sleep 0.2
    now=$(metric_value bottleneckd_soaker_calibration_timestamp_seconds "$cpu")
    [[ -n "$now" && "$now" != "$before" ]] && return 0
  done
  bench_die "the soaker did not recalibrate after SIGHUP (see $BENCH_TMP/bn.log)"
}

# A descriptor nobody writes to: `read -t S -u $IDLE_FD` waits S seconds
# without starting a process (sleep(1) would be one, in the measured window).
exec {IDLE_FD}<> <(:)
wait_quietly() { read -r -t "$1" -u "$IDLE_FD" _ || true; }

samples_now() { curl -fs --max-time 5 "$BN_URL/metrics" | awk '/^bottleneckd_samples_total / {print $2}'; }

# measure_window FILE: waits for the daemon's next tick, then lets one whole
# window of WINDOW seconds pass with nothing of this script running, and writes
# "cpu soaker acct hidden" for every CPU of that window to FILE.
measure_window() {
  local file=$1 s0 s1 body i
  s0=$(samples_now)
  for ((i = 0; i < 20 * WINDOW; i++)); do  # the next tick, at most ~2 windows away
    sleep 0.1
    s1=$(samples_now)
    [[ -n "$s1" && "$s1" != "$s0" ]] && break
  done
  [[ "$s1" != "$s0" ]] || bench_die "no tick in $((2 * WINDOW)) s"
  wait_quietly "$WINDOW.3"
  body=$(curl -fs --max-time 5 "$BN_URL/metrics")
  [[ "$(awk '/^bottleneckd_samples_total / {print $2}' <<<"$body")" == $((s1 + 1)) ]] ||
    bench_die "expected exactly one tick after sample $s1 (the host is too slow for WINDOW=$WINDOW?)"
  awk '
    /^bottleneckd_cpu_busy_ratio\{/ {
      match($0, /cpu="[0-9]+"/); c = substr($0, RSTART + 5, RLENGTH - 6)
      if ($0 ~ /source="soaker"/) s[c] = $NF
      if ($0 ~ /source="accounting"/) a[c] = $NF
    }
    /^bottleneckd_cpu_hidden_ratio\{/ {
      match($0, /cpu="[0-9]+"/); c = substr($0, RSTART + 5, RLENGTH - 6); h[c] = $NF
    }
    END { for (c in s) if ((c in a) && (c in h)) print c, s[c], a[c], h[c] }' <<<"$body" >"$file"
}

# of FILE CPU: "soaker acct hidden" of CPU in FILE ("" when it has none).
of() { awk -v c="$2" '$1 == c {print $2, $3, $4}' "$1"; }

: >"$BENCH_TMP/cells"
ALL_CPUS=$(taskset -pc $$ | awk -F': ' '{print $2}')
# harness_cpu CPU: a CPU of this shell's original mask other than CPU ("" if none).
harness_cpu() {
  local c
  for c in $(awk -v l="$ALL_CPUS" 'BEGIN {n = split(l, r, ","); for (i = 1; i <= n; i++) {
      if (split(r[i], ab, "-") == 2) for (j = ab[1]; j <= ab[2]; j++) print j; else print r[i]}}'); do
    [[ "$c" != "$1" ]] && { echo "$c"; return; }
  done
}

for cpu in $CPUS; do
  hc=$(harness_cpu "$cpu")
  [[ -n "$hc" ]] && taskset -pc "$hc" $$ >/dev/null
  for d in $DUTIES; do
    # A new second is needed for a new timestamp: calibrations are stamped in
    # whole seconds.
    [[ $RECALIBRATE == cell ]] && { sleep 1; recalibrate "$cpu"; }
    calib=$(metric_value bottleneckd_soaker_calibration_iterations_per_second "$cpu")
    frac=$(awk -v d="$d" 'BEGIN {printf "%.2f", d / 100}')
    run_s=$((SETTLE + 2 * WINDOW + 3))
    "$DUTY" duty "$cpu" "$frac" "$run_s" >"$BENCH_TMP/share" &
    dpid=$!
    BENCH_PIDS+=("$dpid")
    sleep "$SETTLE"
    f=$BENCH_TMP/w.$cpu.$d
    measure_window "$f"
    wait "$dpid"
    share=$(awk '{print $2}' "$BENCH_TMP/share")
    read -r s a h <<<"$(of "$f" "$cpu")"
    [[ -n "$h" ]] || bench_die "no soaker figures for cpu $cpu in the window"
    echo "$cpu $d 1 $s $a $h $share - $(cut -d' ' -f1 /proc/loadavg) $calib" >>"$BENCH_TMP/cells"
    echo "soaker_accuracy: cpu $cpu duty $d%: soaker $s acct $a hidden $h load share $share calibration $calib" >&2
  done
done
taskset -pc "$ALL_CPUS" $$ >/dev/null

{
  echo "bottleneckd soaker, one ${WINDOW} s window per cell, calibration: $RECALIBRATE, percentile $(awk '/^percentile / {print $2}' "$STATE/soaker-calibration") ($PERCENTILE), $(date -u +%FT%TZ)."
  echo "Errors in percentage points against the nominal duty; 'other' = accounting - load share"
  echo "(other processes on that CPU by /proc/stat's view)."
  echo
  echo "| cpu | duty % | soaker busy % | err | accounting busy % | err | hidden % | load share % | other % | load avg | calibration M units/s |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk '{d = $2 / 100
    printf "| %s | %s | %.1f | %+.1f | %.1f | %+.1f | %.1f | %.1f | %+.1f | %s | %.3f |\n",
      $1, $2, 100 * $4, 100 * ($4 - d), 100 * $5, 100 * ($5 - d), 100 * $6, 100 * $7,
      100 * ($5 - $7), $9, $10 / 1e6}' "$BENCH_TMP/cells"
  echo
  awk '{d = $2 / 100; es = $4 - d; ea = $5 - d; et = $4 - ($5 > $7 ? $5 : $7)
      n++; s += (es < 0 ? -es : es); a += (ea < 0 ? -ea : ea); t += (et < 0 ? -et : et)
      if ($2 < 100) {m++; s2 += (es < 0 ? -es : es); a2 += (ea < 0 ? -ea : ea)}}
    END {printf "MAE over %d cells: soaker %.2f points, accounting %.2f points; soaker against the truth max(load share, accounting) %.2f points\n", n, 100 * s / n, 100 * a / n, 100 * t / n
      if (m) printf "Without the 100 %% cells (%d): soaker %.2f, accounting %.2f\n", m, 100 * s2 / m, 100 * a2 / m}' "$BENCH_TMP/cells"
} | tee ${OUT:+"$OUT"}

if ((FLOOD_SECONDS > 0)); then
  command -v python3 >/dev/null || bench_die "python3 missing: no UDP flood"
  port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  # Receiver on the last CPU, sender on the first; both stop after FLOOD_SECONDS.
  last_cpu=${CPUS##* }
  first_cpu=${CPUS%% *}
  taskset -c "$last_cpu" python3 - "$port" "$FLOOD_SECONDS" <<'EOF' >"$BENCH_TMP/rx" &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(0.5)
end = time.monotonic() + float(sys.argv[2]) + 2
n = 0
while time.monotonic() < end:
    try:
        s.recv(2048)
        n += 1
    except socket.timeout:
        pass
print("received", n)
EOF
  BENCH_PIDS+=($!)
  rx=$!
  sleep 0.5
  taskset -c "$first_cpu" python3 - "$port" "$FLOOD_SECONDS" "$FLOOD_PPS" <<'EOF' >"$BENCH_TMP/tx" &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst = ("127.0.0.1", int(sys.argv[1]))
msg = b"x" * 64
start = time.monotonic()
end = start + float(sys.argv[2])
pps = float(sys.argv[3])  # 0: as fast as it can
n = 0
while time.monotonic() < end:
    for _ in range(200):
        s.sendto(msg, dst)
    n += 200
    if pps > 0:
        ahead = start + n / pps - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
print("sent", n)
EOF
  BENCH_PIDS+=($!)
  tx=$!
  sleep 2
  c0=$(grep -E '^cpu[0-9]' /proc/stat)
  measure_window "$BENCH_TMP/flood"
  c1=$(grep -E '^cpu[0-9]' /proc/stat)
  wait "$tx" "$rx"
  {
    echo
    echo "UDP flood on loopback, ${FLOOD_SECONDS}s at ${FLOOD_PPS}/s target: sender (python3, 64-byte datagrams) on cpu $first_cpu, receiver on cpu $last_cpu;" \
      "$(cat "$BENCH_TMP/tx"), $(cat "$BENCH_TMP/rx"); load avg $(cut -d' ' -f1 /proc/loadavg)."
    echo "/proc/stat shares from before the wait for the tick to after the window (raw: the soaker's time is in user)."
    echo
    echo "| cpu | soaker busy % | accounting busy % | hidden % | soaker - accounting | /proc/stat softirq % | irq % | system % | user+nice % | idle % |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for cpu in $CPUS; do
      read -r s a h <<<"$(of "$BENCH_TMP/flood" "$cpu")"
      st=$(paste <(grep "^cpu$cpu " <<<"$c0") <(grep "^cpu$cpu " <<<"$c1") | awk '{
        # cols: name user nice system idle iowait irq softirq steal ...; second copy at +11
        for (i = 2; i <= 9; i++) d[i] = $(i + 11) - $i
        t = 0; for (i = 2; i <= 9; i++) t += d[i]
        printf "%.1f | %.1f | %.1f | %.1f | %.1f", 100 * d[8] / t, 100 * d[7] / t, 100 * d[4] / t,
          100 * (d[2] + d[3]) / t, 100 * (d[5] + d[6]) / t}')
      awk -v c="$cpu" -v s="$s" -v a="$a" -v h="$h" -v st="$st" \
        'BEGIN {printf "| %s | %.1f | %.1f | %.1f | %+.1f | %s |\n", c, 100 * s, 100 * a, 100 * h, 100 * (s - a), st}'
    done
  } | tee ${OUT:+-a "$OUT"}
fi
