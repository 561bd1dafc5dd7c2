#!/usr/bin/env bash
# Soaker accuracy (issue 3, docs/performance.md "Soaker"): bottleneckd runs with
# the soaker at interval 1 s while bench/duty.c loads one CPU at a time with a
# known duty cycle (busy-spin / sleep, 9.73 ms period). For each CPU and duty
# WINDOWS one-second windows are read from /metrics; reported per cell: soaker
# busy, accounting busy (/proc/stat busy minus the soaker's own time), hidden
# time, the load's own CPU share (its thread clock) and their errors against the
# nominal duty. Accounting busy is /proc/stat's view: what it shows above the
# load's share is other processes on that CPU (noise, rightly busy), not error.
#
# Then, if FLOOD_SECONDS > 0, a bounded UDP flood on loopback (python3 sender and
# receiver, each pinned to one CPU, stopping after FLOOD_SECONDS) and the same
# figures for every CPU.
#
# usage: bench/soaker_accuracy.sh [BOTTLENECKD_BINARY]
# env:   DUTIES="0 25 50 75 90 100" CPUS="0 1" WINDOWS=10 SETTLE=2
#        FLOOD_SECONDS=15 FLOOD_PPS=50000 (datagrams a second, 0 = flat out) STATE=DIR (soaker state dir: keep or pre-write the
#        calibration; default a fresh temporary one) OUT=FILE (markdown)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
DUTIES=${DUTIES:-"0 25 50 75 90 100"}
CPUS=${CPUS:-$(seq -s' ' 0 $(($(nproc) - 1)))}
WINDOWS=${WINDOWS:-10}
SETTLE=${SETTLE:-2}
FLOOD_SECONDS=${FLOOD_SECONDS:-15}
FLOOD_PPS=${FLOOD_PPS:-50000}
OUT=${OUT:-}
[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-soak-XXXXXX")
STATE=${STATE:-$BENCH_TMP/state}
DUTY=$BENCH_TMP/duty
cc -O3 -o "$DUTY" "$HERE/duty.c" -lm || bench_die "cannot build bench/duty.c"

printf 'interval: 1s\n' >"$BENCH_TMP/c.yaml"
start_bottleneckd "$BIN" "$BENCH_TMP/bn.log" --config.file="$BENCH_TMP/c.yaml" --soaker \
  --path.state="$STATE"
for ((i = 0; i < 100; i++)); do
  curl -fs "$BN_URL/metrics" | grep -q 'source="soaker"' && break
  sleep 0.2
done
echo "soaker_accuracy: daemon up at $BN_URL, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
grep -h '^cpu ' "$STATE/soaker-calibration" >&2 || true

# scrape_windows N FILE: appends "cpu soaker acct hidden" lines for every CPU of
# N distinct windows (a new bottleneckd_samples_total) to FILE.
scrape_windows() {
  local n=$1 file=$2 got=0 last="" body samples
  while ((got < n)); do
    sleep 0.5
    body=$(curl -fs --max-time 5 "$BN_URL/metrics") || continue
    samples=$(awk '/^bottleneckd_samples_total / {print $2}' <<<"$body")
    [[ "$samples" != "$last" ]] || continue
    last=$samples
    awk '
      /^bottleneckd_cpu_busy_ratio\{/ {
        match($0, /cpu="[0-9]+"/); c = substr($0, RSTART + 5, RLENGTH - 6)
        if ($0 ~ /source="soaker"/) s[c] = $NF
        if ($0 ~ /source="accounting"/) a[c] = $NF
      }
      /^bottleneckd_cpu_hidden_ratio\{/ {
        match($0, /cpu="[0-9]+"/); c = substr($0, RSTART + 5, RLENGTH - 6); h[c] = $NF
      }
      END { for (c in s) if ((c in a) && (c in h)) print c, s[c], a[c], h[c] }' <<<"$body" >>"$file"
    got=$((got + 1))
  done
}

# mean_of FILE CPU: "n soaker acct hidden" means (fractions) for CPU, dropping
# the first window (it may straddle the load's start).
mean_of() {
  awk -v c="$2" '$1 == c {k++; if (k == 1) next; n++; s += $2; a += $3; h += $4}
    END {if (n) printf "%d %.4f %.4f %.4f\n", n, s / n, a / n, h / n; else print "0 0 0 0"}' "$1"
}

: >"$BENCH_TMP/cells"
for cpu in $CPUS; do
  for d in $DUTIES; do
    frac=$(awk -v d="$d" 'BEGIN {printf "%.2f", d / 100}')
    run_s=$((SETTLE + WINDOWS + 3))
    "$DUTY" duty "$cpu" "$frac" "$run_s" >"$BENCH_TMP/share" &
    dpid=$!
    BENCH_PIDS+=("$dpid")
    sleep "$SETTLE"
    f=$BENCH_TMP/w.$cpu.$d
    : >"$f"
    scrape_windows $((WINDOWS + 1)) "$f"
    wait "$dpid"
    share=$(awk '{print $2}' "$BENCH_TMP/share")
    read -r n s a h <<<"$(mean_of "$f" "$cpu")"
    # per-window absolute errors of the soaker against the duty, mean over the cell
    wmae=$(awk -v c="$cpu" -v d="$frac" '$1 == c {k++; if (k == 1) next; n++; e = $2 - d; t += (e < 0 ? -e : e)}
      END {printf "%.1f", n ? 100 * t / n : 0}' "$f")
    echo "$cpu $d $n $s $a $h $share $wmae $(cut -d' ' -f1 /proc/loadavg)" >>"$BENCH_TMP/cells"
    echo "soaker_accuracy: cpu $cpu duty $d%: soaker $s acct $a hidden $h load share $share" >&2
  done
done

{
  echo "bottleneckd soaker, interval 1 s, $WINDOWS windows per cell (first dropped), $(date -u +%FT%TZ)."
  echo "Errors in percentage points against the nominal duty; 'other' = accounting - load share"
  echo "(other processes on that CPU by /proc/stat's view)."
  echo
  echo "| cpu | duty % | soaker busy % | err | accounting busy % | err | hidden % | load share % | other % | soaker per-window MAE | load avg |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk '{d = $2 / 100
    printf "| %s | %s | %.1f | %+.1f | %.1f | %+.1f | %.1f | %.1f | %+.1f | %s | %s |\n",
      $1, $2, 100 * $4, 100 * ($4 - d), 100 * $5, 100 * ($5 - d), 100 * $6, 100 * $7,
      100 * ($5 - $7), $8, $9}' "$BENCH_TMP/cells"
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
  : >"$BENCH_TMP/flood"
  scrape_windows $((FLOOD_SECONDS - 4)) "$BENCH_TMP/flood"
  c1=$(grep -E '^cpu[0-9]' /proc/stat)
  wait "$tx" "$rx"
  {
    echo
    echo "UDP flood on loopback, ${FLOOD_SECONDS}s at ${FLOOD_PPS}/s target: sender (python3, 64-byte datagrams) on cpu $first_cpu, receiver on cpu $last_cpu;" \
      "$(cat "$BENCH_TMP/tx"), $(cat "$BENCH_TMP/rx"); load avg $(cut -d' ' -f1 /proc/loadavg)."
    echo "/proc/stat shares over the same windows (raw: the soaker's time is in user)."
    echo
    echo "| cpu | soaker busy % | accounting busy % | hidden % | soaker - accounting | /proc/stat softirq % | irq % | system % | user+nice % | idle % |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for cpu in $CPUS; do
      read -r n s a h <<<"$(mean_of "$BENCH_TMP/flood" "$cpu")"
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
