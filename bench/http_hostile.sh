#!/usr/bin/env bash
# Scrapes under hostile clients (issues 17 and 32), side by side with the peer:
# one bottleneckd and one node_exporter (Debian's prometheus-node-exporter, its
# default collectors, live), each on a 127.0.0.1 port the kernel picked, get
# the same load one after the other: SCRAPERS scrapers each GET /metrics every
# SCRAPE_INTERVAL s (spread over the interval, as Prometheus spreads targets)
# while SLOWLORIS connections dribble an unfinished request one byte every
# 300 ms and IDLE connections send nothing (each reopened when the server
# closes it), for DURATION s. Clients: tests/integration/hostile_http.py (each
# in its own process). bottleneckd samples this host (default config) or, with
# TREE=NAME, the fixture tree tests/fixtures/NAME (large-host: 318 KB bodies).
# Reported per server:
#   scrape latency   connect to end of body, p50/p99/max over all scrapes
#   failed scrapes   non-200, connection error, or slower than SCRAPE_TIMEOUT
#   hostile          connections opened, closed by the server, their lifetime
#   RSS              VmRSS before any client, every 10 s, at the end; VmHWM
#   CPU              utime+stime over the load, ms
#   threads          at the end
# Not part of the test suite: nothing here passes or fails on a time.
#
# usage: bench/http_hostile.sh [BOTTLENECKD_BINARY]
# env:   DURATION=60 SCRAPERS=50 SLOWLORIS=200 IDLE=0 SCRAPE_INTERVAL=1 SCRAPE_TIMEOUT=10
#        TREE= (a fixture tree name) PEER=1 (0: bottleneckd only)
#        OUT=FILE (also write the markdown table there)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
DURATION=${DURATION:-60}
SCRAPERS=${SCRAPERS:-50}
SLOWLORIS=${SLOWLORIS:-200}
IDLE=${IDLE:-0}
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-1}
SCRAPE_TIMEOUT=${SCRAPE_TIMEOUT:-10}
TREE=${TREE:-}
PEER=${PEER:-1}
OUT=${OUT:-}
CLIENT=$SRC/tests/integration/hostile_http.py

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v python3 >/dev/null || bench_die "python3 is not installed"
if [[ "$PEER" == 1 ]]; then
  command -v prometheus-node-exporter >/dev/null || bench_die "prometheus-node-exporter is not installed (PEER=0 skips it)"
fi

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }

# load NAME PID URL: the clients against one server; its figures in
# $BENCH_TMP/NAME.env (shell) and NAME-*.json.
load() {
  local name=$1 pid=$2 port=${3##*:} pids=() t0 t1
  echo "$name pid $pid on 127.0.0.1:$port: $SCRAPERS scrapers every ${SCRAPE_INTERVAL}s +" \
    "$SLOWLORIS slowloris + $IDLE idle for ${DURATION}s" >&2
  {
    echo "RSS_START=$(rss_kb "$pid")"
    echo "BYTES=$(curl -s "$3/metrics" | wc -c)"
  } >"$BENCH_TMP/$name.env"
  printf '{"opened": 0, "closed_by_server": 0, "connect_errors": 0, "lifetime_s": {"p50": null, "max": null}}\n' \
    | tee "$BENCH_TMP/$name-slowloris.json" >"$BENCH_TMP/$name-idle.json"
  if ((SLOWLORIS > 0)); then
    python3 "$CLIENT" slowloris --port "$port" --connections "$SLOWLORIS" --interval 0.3 \
      --duration "$((DURATION + 2))" >"$BENCH_TMP/$name-slowloris.json" &
    pids+=("$!")
  fi
  if ((IDLE > 0)); then
    python3 "$CLIENT" idle --port "$port" --connections "$IDLE" --duration "$((DURATION + 2))" \
      >"$BENCH_TMP/$name-idle.json" &
    pids+=("$!")
  fi
  BENCH_PIDS+=("${pids[@]}")
  sleep 1
  (
    for ((i = 0; i < DURATION; i += 10)); do sleep 10; rss_kb "$pid"; done
  ) >"$BENCH_TMP/$name-rss.txt" &
  BENCH_PIDS+=("$!")
  t0=$(cpu_ticks "$pid")
  python3 "$CLIENT" scrape --port "$port" --workers "$SCRAPERS" --interval "$SCRAPE_INTERVAL" \
    --duration "$DURATION" --timeout "$SCRAPE_TIMEOUT" >"$BENCH_TMP/$name-scrape.json"
  t1=$(cpu_ticks "$pid")
  for p in "${pids[@]}"; do wait "$p"; done
  {
    echo "RSS_END=$(rss_kb "$pid")"
    echo "HWM=$(peak_rss_kb "$pid")"
    echo "THREADS=$(threads "$pid")"
    echo "CPU_MS=$(((t1 - t0) * 1000 / CLK_TCK))"
    echo "RSS_SAMPLES='$(tr '\n' ' ' <"$BENCH_TMP/$name-rss.txt")'"
  } >>"$BENCH_TMP/$name.env"
}

mkdir -p "$BENCH_TMP/state"
BN_ARGS=(--path.state="$BENCH_TMP/state" --control.socket="$BENCH_TMP/state/control.sock")
if [[ -n "$TREE" ]]; then
  FIX=$SRC/tests/fixtures/$TREE
  [[ -d "$FIX" ]] || bench_die "no fixture tree $FIX"
  printf 'interval: 1s\n' >"$BENCH_TMP/bottleneckd.yaml"
  BN_ARGS+=(--config.file="$BENCH_TMP/bottleneckd.yaml" --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys"
    --path.ethtool="$FIX/ethtool")
fi
start_bottleneckd "$BIN" "$BENCH_TMP/daemon.log" "${BN_ARGS[@]}"
sleep 2  # a couple of samples in, so /metrics has its full size
load bottleneckd "$BN_PID" "$BN_URL"
NAMES=(bottleneckd)
if [[ "$PEER" == 1 ]]; then
  kill "$BN_PID"; wait "$BN_PID" 2>/dev/null || true
  start_node_exporter "$BENCH_TMP/node_exporter.log"
  sleep 2
  load node_exporter "$NE_PID" "$NE_URL"
  NAMES+=(node_exporter)
fi

python3 - "$BENCH_TMP" "${NAMES[@]}" <<EOF | tee ${OUT:+"$OUT"}
import json, shlex, sys
tmp, names = sys.argv[1], sys.argv[2:]
def env(name):
    out = {}
    for line in open(f"{tmp}/{name}.env"):
        k, v = line.rstrip("\n").split("=", 1)
        out[k] = shlex.split(v)[0] if v.startswith("'") else v
    return out
ms = lambda v: "%.1f" % (v * 1000) if v is not None else "-"
s = lambda v: "%.2f" % v if v is not None else "-"
cols = []
for n in names:
    e = env(n)
    sc = json.load(open(f"{tmp}/{n}-scrape.json"))
    sl = json.load(open(f"{tmp}/{n}-slowloris.json"))
    idle = json.load(open(f"{tmp}/{n}-idle.json"))
    lat = sc["latency_s"]
    cols.append([
        "%d" % sc["scrapes"], "%d" % sc["failed"],
        "%s / %s / %s ms" % (ms(lat["p50"]), ms(lat["p99"]), ms(lat["max"])),
        "%d / %d / %d" % (sl["opened"] + idle["opened"], sl["closed_by_server"] + idle["closed_by_server"],
                          sl["connect_errors"] + idle["connect_errors"]),
        "%s / %s s" % (s(sl["lifetime_s"]["p50"]), s(sl["lifetime_s"]["max"])),
        "%s / %s s" % (s(idle["lifetime_s"]["p50"]), s(idle["lifetime_s"]["max"])),
        "%s B" % e["BYTES"].strip(),
        "%s / %s (%s) kB" % (e["RSS_START"], e["RSS_END"], e["HWM"]),
        "%s kB" % e["RSS_SAMPLES"].strip(),
        "%s ms" % e["CPU_MS"], e["THREADS"],
    ])
rows = ["scrapes", "failed scrapes", "scrape latency p50 / p99 / max",
        "hostile connections opened / closed by the server / connect errors",
        "slowloris lifetime p50 / max", "idle lifetime p50 / max", "/metrics body",
        "RSS before / end (peak)", "RSS every 10 s", "CPU over the load", "threads"]
print("load: $SCRAPERS scrapers every ${SCRAPE_INTERVAL} s + $SLOWLORIS slowloris + $IDLE idle, ${DURATION} s;"
      " bottleneckd on ${TREE:-this host}\n")
print("| measure | " + " | ".join(names) + " |")
print("|---" * (len(names) + 1) + "|")
for i, r in enumerate(rows):
    print("| %s | %s |" % (r, " | ".join(c[i] for c in cols)))
EOF
