# shellcheck shell=bash
# Helpers shared by bench/scrape_compare.sh and bench/daemon_cost.sh (sourced,
# not run). Loopback only; every process started here is recorded in
# BENCH_PIDS and killed by bench_cleanup (install it with `trap bench_cleanup EXIT`).

BENCH_PIDS=()
BENCH_TMP=""
# shellcheck disable=SC2034  # used by the scripts that source this file
CLK_TCK=$(getconf CLK_TCK)

bench_cleanup() {
  local pid
  for pid in "${BENCH_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${BENCH_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  BENCH_PIDS=()
  if [[ -n "$BENCH_TMP" && -d "$BENCH_TMP" ]]; then rm -rf "$BENCH_TMP"; fi
}

bench_die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# utime + stime of PID (all its threads), in clock ticks.
cpu_ticks() {
  local rest
  rest=$(cat "/proc/$1/stat") || return 1
  rest=${rest##*) }  # drop "pid (comm) ": the comm may hold spaces
  # shellcheck disable=SC2086
  set -- $rest
  # $1 is field 3 (state); utime is field 14, stime field 15.
  echo $(( ${12} + ${13} ))
}

# Nanoseconds PID's live threads have run (the first field of each
# /proc/PID/task/TID/schedstat): exact where clock ticks count in 10 ms steps
# (a scrape is a few hundred microseconds). Threads that exit take their time
# with them: the exporters measured here keep theirs.
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# Peak resident set (VmHWM) of PID in kB.
peak_rss_kb() {
  awk '/^VmHWM:/ {print $2}' "/proc/$1/status"
}

# Seconds since the epoch with nanoseconds.
now() { date +%s.%N; }

# A TCP port on 127.0.0.1 that nobody listens on right now (the kernel picks it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits (at most ~10 s) until URL answers 200.
wait_http() {
  local url=$1 i
  for ((i = 0; i < 100; i++)); do
    if curl -fs -o /dev/null --max-time 2 "$url"; then return 0; fi
    sleep 0.1
  done
  return 1
}

# start_bottleneckd BIN LOG ARGS... : starts it on 127.0.0.1 with a kernel-chosen
# port; sets BN_PID and BN_URL (http://127.0.0.1:PORT).
start_bottleneckd() {
  local bin=$1 log=$2 i addr=""
  shift 2
  "$bin" --web.listen-address=127.0.0.1:0 "$@" 2>"$log" &
  BN_PID=$!
  BENCH_PIDS+=("$BN_PID")
  for ((i = 0; i < 100; i++)); do
    addr=$(sed -n 's/.*msg=listening address=\([0-9.]*:[0-9]*\).*/\1/p' "$log" | head -n1)
    [[ -n "$addr" ]] && break
    kill -0 "$BN_PID" 2>/dev/null || { cat "$log" >&2; bench_die "bottleneckd exited at start"; }
    sleep 0.1
  done
  [[ -n "$addr" ]] || { cat "$log" >&2; bench_die "bottleneckd did not log its address"; }
  BN_URL="http://$addr"
  wait_http "$BN_URL/" || bench_die "bottleneckd does not answer on $BN_URL"
}

# start_node_exporter LOG ARGS... : sets NE_PID and NE_URL.
start_node_exporter() {
  local log=$1 port
  shift
  port=$(free_port)
  prometheus-node-exporter --web.listen-address="127.0.0.1:$port" "$@" 2>"$log" &
  NE_PID=$!
  BENCH_PIDS+=("$NE_PID")
  NE_URL="http://127.0.0.1:$port"
  wait_http "$NE_URL/" || { cat "$log" >&2; bench_die "node_exporter does not answer on $NE_URL"; }
}

# Median and 95th percentile (nearest rank) of the numbers in FILE, one a line,
# multiplied by SCALE: prints "MEDIAN P95".
median_p95() {
  sort -g "$1" | awk -v scale="${2:-1}" '{v[NR] = $1}
    END {
      if (NR == 0) { print "n/a n/a"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      r = int(0.95 * NR + 0.999999); if (r < 1) r = 1
      printf "%.2f %.2f\n", m * scale, v[r] * scale
    }'
}

# Series in an exposition body: non-empty lines that are not comments.
count_series() {
  grep -cv -e '^#' -e '^$' "$1" || true
}

# write_tick_config FILE: the idle tick's configuration for the tick benches
# (bench/tick_floor.sh, bench/tick_side_by_side.sh): 1 s ticks, collectors
# only (soaker, irqtime, offcpu and profile off; their costs have their own
# benches).
write_tick_config() {
  cat >"$1" <<YAML
interval: 1s
soaker:
  mode: off
collectors:
  irqtime:
    mode: off
  offcpu:
    enabled: false
  profile:
    mode: off
YAML
}
