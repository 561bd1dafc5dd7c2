#!/usr/bin/env bash
# Scrape cost, side by side in one run: bottleneckd vs Debian's
# prometheus-node-exporter (1.5) restricted to the collectors that read the same
# kernel files (netdev, interrupts, softnet, stat; 1.5 has no softirqs collector,
# so stat runs with --collector.stat.softirq), both pointed at the same fixture
# tree and listening on 127.0.0.1 ports the kernel picked.
#
# For each scenario the exporters are scraped N times with curl, in ROUNDS
# alternating blocks (so a burst of load from other work on the machine hits all
# of them alike). Reported per exporter:
#   CPU ms/scrape   the exporter's threads' run time (/proc/PID/task/*/schedstat,
#                   nanoseconds; lib.sh cpu_ns) over its scrapes / N. Nothing is subtracted: bottleneckd keeps sampling
#                   the tree every second meanwhile.
#   idle CPU ms     the same process's CPU over the same wall time without
#                   scrapes (measured afterwards, all exporters idle together,
#                   over at most IDLE_MAX s and scaled linearly), / N: the
#                   baseline included in the figure above.
#   latency         curl's time_total, median and p95 over the N scrapes.
#   series, bytes   of one response (non-comment lines; uncompressed body).
#   wire bytes      the body as sent: the same for identity, the gzip body for
#                   the "gzip" rows.
# bottleneckd runs twice: as shipped (a tick's body built once, shared by the
# scrapes of that tick) and with BOTTLENECKD_BENCH_UNCACHED=1 (built for every
# scrape, as a lone Prometheus scraping once a tick pays it).
# Each exporter is scraped twice over, as two targets of the same process in
# the same rounds: identity (no Accept-Encoding) and gzip (curl -H
# 'Accept-Encoding: gzip', as Prometheus sends; the body is kept as sent).
# bottleneckd's level (1) against zlib's default (6) is measured on its identity
# body with Python's zlib module (the same library and stream format as
# exporters/http/gzip_body.cc): bytes, and CPU ms per compression
# (time.process_time over ZREPS compressions); printed as a second table.
# node_exporter's netdev collector reads /proc/net/dev, which the fixture trees
# do not record, so each tree's proc/ is copied to a scratch directory and a
# net/dev is written from its sys/class/net/*/statistics (the kernel's column
# formulas); both exporters read that same scratch proc/ and the fixture's sys/.
#
# usage: bench/scrape_compare.sh [BOTTLENECKD_BINARY]
# env:   N=200 ROUNDS=10 SCENARIOS="vm seed-box large-host"
#        MATRIX=1 (large-host also gets a bottleneckd with per_cpu_matrix: true,
#        the counterpart of node_exporter's per-CPU x per-IRQ interrupts series)
#        IDLE_MAX=60 (cap of the idle baseline's wall time, seconds)
#        OUT=FILE (also write the markdown table there)
#        ZREPS=20 (compressions per level in the level table)
#        CONN=keepalive (each round's scrapes of a target share one kept-alive
#        connection, as Prometheus scrapes: one curl with PER_ROUND URLs) or
#        fresh (a new curl and TCP connection per scrape, which on this VM
#        costs the server about 0.26 ms of kernel time on its own)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
N=${N:-200}
ROUNDS=${ROUNDS:-10}
SCENARIOS=${SCENARIOS:-"vm seed-box large-host"}
MATRIX=${MATRIX:-1}
IDLE_MAX=${IDLE_MAX:-60}
OUT=${OUT:-}
ZREPS=${ZREPS:-20}
CONN=${CONN:-keepalive}
[[ "$CONN" == keepalive || "$CONN" == fresh ]] || bench_die "CONN is keepalive or fresh, not $CONN"

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v prometheus-node-exporter >/dev/null || bench_die "prometheus-node-exporter is not installed"
command -v gzip >/dev/null || bench_die "gzip is not installed"
(( N >= ROUNDS && ROUNDS >= 1 )) || bench_die "need N >= ROUNDS >= 1"
PER_ROUND=$(( N / ROUNDS ))
N=$(( PER_ROUND * ROUNDS ))

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")

# Writes PROC/net/dev from SYS/class/net/*/statistics as the kernel formats it
# (net/core/net-procfs.c dev_seq_printf_stats).
write_net_dev() {
  local sys=$1 out=$2 d st
  {
    echo "Inter-|   Receive                                                |  Transmit"
    echo " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed"
    for d in "$sys"/class/net/*; do
      st=$d/statistics
      [[ -d "$st" ]] || continue
      v() { local x; x=$(cat "$st/$1" 2>/dev/null || echo 0); echo "${x:-0}"; }
      printf '%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d %10d\n' \
        "$(basename "$d")" "$(v rx_bytes)" "$(v rx_packets)" "$(v rx_errors)" \
        $(( $(v rx_dropped) + $(v rx_missed_errors) )) "$(v rx_fifo_errors)" \
        $(( $(v rx_length_errors) + $(v rx_over_errors) + $(v rx_crc_errors) + $(v rx_frame_errors) )) \
        "$(v rx_compressed)" "$(v multicast)" "$(v tx_bytes)" "$(v tx_packets)" "$(v tx_errors)" \
        "$(v tx_dropped)" "$(v tx_fifo_errors)" "$(v collisions)" \
        $(( $(v tx_carrier_errors) + $(v tx_aborted_errors) + $(v tx_window_errors) + $(v tx_heartbeat_errors) )) \
        "$(v tx_compressed)"
    done
  } >"$out"
}

ROWS=()
LEVEL_ROWS=()

# zlib level 1 and 6 of FILE: "BYTES1 MS1 BYTES6 MS6" (CPU ms per compression).
zlib_levels() {
  python3 - "$1" "$ZREPS" <<'PY'
import sys, time, zlib
body = open(sys.argv[1], "rb").read()
reps = int(sys.argv[2])
out = []
for level in (1, 6):
    t0 = time.process_time()
    for _ in range(reps):
        c = zlib.compressobj(level, zlib.DEFLATED, 31)  # 15 + 16: gzip wrapper
        gz = c.compress(body) + c.flush()
    out += [str(len(gz)), "%.3f" % ((time.process_time() - t0) * 1000 / reps)]
print(" ".join(out))
PY
}

run_scenario() {
  local scenario=$1 fixture=$SRC/tests/fixtures/$1 dir=$BENCH_TMP/$1
  [[ -d "$fixture/proc" ]] || bench_die "no fixture tree $fixture"
  mkdir -p "$dir"
  cp -a "$fixture/proc" "$dir/proc"
  mkdir -p "$dir/proc/net"
  write_net_dev "$fixture/sys" "$dir/proc/net/dev"
  local paths=(--path.procfs="$dir/proc" --path.sysfs="$fixture/sys")

  # Targets: parallel arrays of name, pid, url, Accept-Encoding ("" for none).
  local names=() pids=() urls=() codings=()
  printf 'interval: 1s\n' >"$dir/bottleneckd.yaml"
  start_bottleneckd "$BIN" "$dir/bottleneckd.log" --config.file="$dir/bottleneckd.yaml" \
    "${paths[@]}" --path.ethtool="$fixture/ethtool"
  names+=("bottleneckd" "bottleneckd gzip"); pids+=("$BN_PID" "$BN_PID")
  urls+=("$BN_URL/metrics" "$BN_URL/metrics"); codings+=("" gzip)
  # The same daemon building every scrape's body afresh: the scrapes here come
  # many to a tick, and the default one builds a tick's body once and shares
  # it (exporters/http/http_server.h), while one Prometheus scrapes a tick once.
  export BOTTLENECKD_BENCH_UNCACHED=1
  start_bottleneckd "$BIN" "$dir/uncached.log" --config.file="$dir/bottleneckd.yaml" \
    "${paths[@]}" --path.ethtool="$fixture/ethtool"
  unset BOTTLENECKD_BENCH_UNCACHED
  names+=("bottleneckd, built per scrape" "bottleneckd, built per scrape, gzip"); pids+=("$BN_PID" "$BN_PID")
  urls+=("$BN_URL/metrics" "$BN_URL/metrics"); codings+=("" gzip)
  if [[ "$scenario" == large-host && "$MATRIX" == 1 ]]; then
    printf 'interval: 1s\ncollectors:\n  interrupts:\n    per_cpu_matrix: true\n' >"$dir/matrix.yaml"
    start_bottleneckd "$BIN" "$dir/matrix.log" --config.file="$dir/matrix.yaml" \
      "${paths[@]}" --path.ethtool="$fixture/ethtool"
    names+=("bottleneckd per_cpu_matrix" "bottleneckd per_cpu_matrix gzip"); pids+=("$BN_PID" "$BN_PID")
    urls+=("$BN_URL/metrics" "$BN_URL/metrics"); codings+=("" gzip)
  fi
  start_node_exporter "$dir/node_exporter.log" --collector.disable-defaults \
    --collector.netdev --no-collector.netdev.netlink --collector.interrupts \
    --collector.softnet --collector.stat --collector.stat.softirq "${paths[@]}"
  local ne=${#names[@]}  # node_exporter identity: the ratio's reference
  names+=("node_exporter 1.5" "node_exporter 1.5 gzip"); pids+=("$NE_PID" "$NE_PID")
  urls+=("$NE_URL/metrics" "$NE_URL/metrics"); codings+=("" gzip)
  sleep 2.5  # bottleneckd: at least two samples, so the window families exist

  local k t r
  local -a hdr=()
  for k in "${!names[@]}"; do
    hdr[k]="Accept-Encoding: ${codings[$k]}"  # "Accept-Encoding: " (identity): curl sends none
    curl -fs --max-time 60 -H "${hdr[k]}" -o "$dir/wire.$k" "${urls[$k]}" || bench_die "scrape of ${names[$k]} failed"
    if [[ -n "${codings[$k]}" ]]; then
      gzip -dc <"$dir/wire.$k" >"$dir/body.$k" || bench_die "${names[$k]}: the body is not gzip"
    else
      cp "$dir/wire.$k" "$dir/body.$k"
    fi
    : >"$dir/lat.$k"
  done
  # node_exporter reports a failing collector in its own output.
  if grep -q '^node_scrape_collector_success{[^}]*} 0' "$dir/body.$ne"; then
    echo "warning: $scenario: node_exporter collectors failing:" \
      "$(grep '^node_scrape_collector_success{[^}]*} 0' "$dir/body.$ne" | tr '\n' ' ')" >&2
  fi

  local -a cpu=() wall=()
  for k in "${!names[@]}"; do cpu[k]=0; wall[k]=0; done
  for ((r = 0; r < ROUNDS; r++)); do
    for k in "${!names[@]}"; do
      local c0 c1 w0 w1
      c0=$(cpu_ns "${pids[$k]}"); w0=$(now)
      if [[ "$CONN" == fresh ]]; then
        for ((t = 0; t < PER_ROUND; t++)); do
          curl -fs --max-time 60 -H "${hdr[k]}" -o /dev/null -w '%{time_total}\n' "${urls[$k]}" >>"$dir/lat.$k" ||
            bench_die "scrape of ${names[$k]} failed"
        done
      else
        local -a many=()
        for ((t = 0; t < PER_ROUND; t++)); do many+=(-o /dev/null "${urls[$k]}"); done
        curl -fs --max-time 600 -H "${hdr[k]}" -w '%{time_total}\n' "${many[@]}" >>"$dir/lat.$k" ||
          bench_die "scrape of ${names[$k]} failed"
      fi
      c1=$(cpu_ns "${pids[$k]}"); w1=$(now)
      cpu[k]=$(( cpu[k] + c1 - c0 ))
      wall[k]=$(awk -v a="${wall[k]}" -v b="$w0" -v c="$w1" 'BEGIN {printf "%.3f", a + c - b}')
    done
  done

  # Idle baseline: every exporter idle together for the longest scrape wall
  # time (at most IDLE_MAX s); each one's idle CPU is scaled linearly to its
  # own scrape wall time.
  local wmax=0 i0=() i1=()
  for k in "${!names[@]}"; do
    wmax=$(awk -v a="$wmax" -v b="${wall[k]}" 'BEGIN {print (b > a) ? b : a}')
  done
  wmax=$(awk -v a="$wmax" -v m="$IDLE_MAX" 'BEGIN {print (a > m) ? m : a}')
  for k in "${!names[@]}"; do i0[k]=$(cpu_ns "${pids[$k]}"); done
  sleep "$wmax"
  for k in "${!names[@]}"; do i1[k]=$(cpu_ns "${pids[$k]}"); done

  local ne_cpu_ms
  ne_cpu_ms=$(awk -v c="${cpu[ne]}" -v n="$N" 'BEGIN {printf "%.3f", c / 1e6 / n}')
  for k in "${!names[@]}"; do
    local series bytes wire cpu_ms idle_ms lat_med lat_p95 ratio
    series=$(count_series "$dir/body.$k")
    bytes=$(stat -c %s "$dir/body.$k")
    wire=$(stat -c %s "$dir/wire.$k")
    cpu_ms=$(awk -v c="${cpu[k]}" -v n="$N" 'BEGIN {printf "%.3f", c / 1e6 / n}')
    idle_ms=$(awk -v c="$(( i1[k] - i0[k] ))" -v n="$N" -v w="${wall[k]}" -v wm="$wmax" \
      'BEGIN {printf "%.3f", (wm > 0 ? c * w / wm : 0) / 1e6 / n}')
    read -r lat_med lat_p95 < <(median_p95 "$dir/lat.$k" 1000)
    ratio=$(awk -v a="$cpu_ms" -v b="$ne_cpu_ms" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}')
    ROWS+=("| $scenario | ${names[$k]} | $series | $bytes | $wire | $cpu_ms | $idle_ms | $ratio | $lat_med | $lat_p95 | $(peak_rss_kb "${pids[$k]}") | ${wall[k]} |")
  done

  for k in "${!names[@]}"; do
    [[ -z "${codings[$k]}" && "${names[$k]}" == bottleneckd* ]] || continue
    local l1 m1 l6 m6
    read -r l1 m1 l6 m6 < <(zlib_levels "$dir/body.$k")
    LEVEL_ROWS+=("| $scenario | ${names[$k]} | $(stat -c %s "$dir/body.$k") | $l1 | $m1 | $l6 | $m6 | $(awk -v a="$l1" -v b="$l6" 'BEGIN {printf "%.1f", (a - b) * 100 / a}') | $(awk -v a="$m1" -v b="$m6" 'BEGIN {if (a > 0) printf "%.2f", b / a; else print "n/a"}') |")
  done

  for k in "${!names[@]}"; do kill "${pids[$k]}" 2>/dev/null || true; done
  for k in "${!names[@]}"; do wait "${pids[$k]}" 2>/dev/null || true; done
  BENCH_PIDS=()
}

for s in $SCENARIOS; do
  echo "scrape_compare: $s (N=$N in $ROUNDS rounds)" >&2
  run_scenario "$s"
done

{
  echo "N=$N scrapes per exporter, connections: $CONN; CPU = the exporter's threads' run time (schedstat, ns); ratio = CPU/scrape over node_exporter's (identity) in the same scenario; gzip rows: Accept-Encoding: gzip."
  echo
  echo "| scenario | exporter | series | bytes | wire bytes | CPU ms/scrape | idle CPU ms (same wall time) / N | CPU ratio vs node_exporter | latency median ms | latency p95 ms | peak RSS kB | scrape wall s |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "zlib on bottleneckd's identity body (Python zlib, gzip wrapper, ZREPS=$ZREPS compressions per level):"
  echo
  echo "| scenario | exporter | bytes | level 1 bytes | level 1 CPU ms | level 6 bytes | level 6 CPU ms | level 6 smaller by % | level 6 CPU / level 1 |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${LEVEL_ROWS[@]}"
} | tee ${OUT:+"$OUT"}
