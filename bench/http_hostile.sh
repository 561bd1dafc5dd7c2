#!/usr/bin/env bash
# Scrapes under hostile clients (issue 17): one bottleneckd on this host
# (default config, 127.0.0.1, kernel-chosen port), SCRAPERS scrapers each
# GET /metrics every SCRAPE_INTERVAL s (spread over the interval, as Prometheus
# spreads targets) while SLOWLORIS connections dribble an unfinished request one
# byte every 300 ms (each reopened when the server closes it), for DURATION s.
# Clients: tests/integration/hostile_http.py (scrapers and slowloris in two
# processes). Reported:
#   scrape latency   connect to end of body, p50/p99/max over all scrapes
#   failed scrapes   non-200, connection error, or slower than SCRAPE_TIMEOUT
#   slowloris        connections the server closed, their lifetime p50/max
#   daemon RSS       VmRSS at start (before any client) and end, VmHWM, threads
# Not part of the test suite: nothing here passes or fails on a time.
#
# usage: bench/http_hostile.sh [BOTTLENECKD_BINARY]
# env:   DURATION=60 SCRAPERS=50 SLOWLORIS=200 SCRAPE_INTERVAL=1 SCRAPE_TIMEOUT=10
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
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-1}
SCRAPE_TIMEOUT=${SCRAPE_TIMEOUT:-10}
OUT=${OUT:-}
CLIENT=$SRC/tests/integration/hostile_http.py

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v python3 >/dev/null || bench_die "python3 is not installed"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")

mkdir -p "$BENCH_TMP/state"
start_bottleneckd "$BIN" "$BENCH_TMP/daemon.log" --path.state="$BENCH_TMP/state" \
  --control.socket="$BENCH_TMP/state/control.sock"
PORT=${BN_URL##*:}
sleep 2  # a couple of samples in, so /metrics has its full size
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }
RSS_START=$(rss_kb "$BN_PID")
BYTES=$(curl -s "$BN_URL/metrics" | wc -c)

echo "bottleneckd pid $BN_PID on 127.0.0.1:$PORT: $SCRAPERS scrapers every ${SCRAPE_INTERVAL}s +" \
  "$SLOWLORIS slowloris for ${DURATION}s" >&2
python3 "$CLIENT" slowloris --port "$PORT" --connections "$SLOWLORIS" --interval 0.3 \
  --duration "$((DURATION + 2))" >"$BENCH_TMP/slowloris.json" &
SLOW_PID=$!
BENCH_PIDS+=("$SLOW_PID")
sleep 1
(
  for ((i = 0; i < DURATION; i += 10)); do sleep 10; rss_kb "$BN_PID"; done
) >"$BENCH_TMP/rss.txt" &
BENCH_PIDS+=("$!")
python3 "$CLIENT" scrape --port "$PORT" --workers "$SCRAPERS" --interval "$SCRAPE_INTERVAL" \
  --duration "$DURATION" --timeout "$SCRAPE_TIMEOUT" >"$BENCH_TMP/scrape.json"
wait "$SLOW_PID"
RSS_END=$(rss_kb "$BN_PID")
HWM=$(peak_rss_kb "$BN_PID")
THREADS=$(threads "$BN_PID")
mapfile -t RSS_SAMPLES <"$BENCH_TMP/rss.txt"

python3 - "$BENCH_TMP/scrape.json" "$BENCH_TMP/slowloris.json" <<EOF | tee ${OUT:+"$OUT"}
import json, sys
sc = json.load(open(sys.argv[1]))
sl = json.load(open(sys.argv[2]))
ms = lambda v: "%.1f" % (v * 1000) if v is not None else "-"
s = lambda v: "%.2f" % v if v is not None else "-"
lat, life = sc["latency_s"], sl["lifetime_s"]
print("| measure | value |")
print("|---|---|")
print("| load | $SCRAPERS scrapers every ${SCRAPE_INTERVAL} s + $SLOWLORIS slowloris, ${DURATION} s |")
print("| scrapes (body $BYTES bytes) | %d |" % sc["scrapes"])
print("| failed scrapes | %d |" % sc["failed"])
print("| scrape latency p50 / p99 / max | %s / %s / %s ms |" % (ms(lat["p50"]), ms(lat["p99"]), ms(lat["max"])))
print("| slowloris connections opened / closed by the server | %d / %d |" % (sl["opened"], sl["closed_by_server"]))
print("| slowloris lifetime p50 / max | %s / %s s |" % (s(life["p50"]), s(life["max"])))
print("| daemon RSS start / end (peak) | $RSS_START / $RSS_END ($HWM) kB |")
print("| daemon RSS every 10 s | ${RSS_SAMPLES[*]} kB |")
print("| daemon threads | $THREADS |")
if sc["failures"]:
    print("\nfirst failures: %s" % sc["failures"], file=sys.stderr)
EOF
