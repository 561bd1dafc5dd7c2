#!/usr/bin/env bash
# The fleet at scale (docs/performance-history.md "Fleet"): SIM_HOSTS simulated hosts
# (default 1000) over 24 h, a sample every 30 s, a few dozen bound by cpu,
# interrupt or bus at known times (tests/integration/fleet_data.py, scenario
# fleet, seed 31), backfilled into the real Prometheus with `promtool tsdb
# create-blocks-from openmetrics`; the shipped recording rules backfilled
# over them with `promtool tsdb create-blocks-from rules`. Then, each timed:
#   - every recording rule at three instants against the injected truth
#     (bench/fleet_scale_check.py rules): what the fleet dashboard reads;
#   - every panel target of the fleet dashboard over the 24 h
#     (tests/integration/dashboards.py query, 90 s steps);
#   - the fleet report over the 24 h at 1, 100 and SIM_HOSTS hosts (median of
#     3), the whole fleet's answer against the truth.
# Loopback only; needs about 3 GB of temp space and 3 GB of memory.
#
# usage: bench/fleet_scale.sh BOTTLENECKD
set -euo pipefail
BIN=$(readlink -f "${1:?usage: fleet_scale.sh BOTTLENECKD}")
HOSTS=${SIM_HOSTS:-1000}
# A sample every 30 s: the shipped rules' 1m windows (rate, avg_over_time)
# need two samples in a minute, as with any scrape interval up to 30 s.
STEP=${SIM_STEP:-30}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$SRC/bench/lib.sh"
trap bench_cleanup EXIT
BENCH_TMP=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 600); do curl -sf -m 2 "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
clock() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(clock)" 'BEGIN { printf "%.1f", b - a }'; }

START=$(( ($(date +%s) - 86400 - 600) / 60 * 60 ))
END=$(( START + 86400 ))
t0=$(clock)
python3 "$SRC/tests/integration/fleet_data.py" --scenario fleet --hosts "$HOSTS" --seconds 86400 --step "$STEP" \
  --start "$START" --out "$BENCH_TMP/fleet.om" --truth "$BENCH_TMP/truth.json"
echo "generated: $(grep -c . "$BENCH_TMP/fleet.om") lines, $(du -h "$BENCH_TMP/fleet.om" | cut -f1) in $(took "$t0") s"
t0=$(clock)
promtool tsdb create-blocks-from openmetrics "$BENCH_TMP/fleet.om" "$BENCH_TMP/data" >"$BENCH_TMP/blocks.log"
rm -f "$BENCH_TMP/fleet.om"
echo "backfilled: $(ls "$BENCH_TMP/data" | wc -l) blocks, $(du -sh "$BENCH_TMP/data" | cut -f1) in $(took "$t0") s"

port=$(free_port)
URL="http://127.0.0.1:$port"
start_prometheus() {
  printf 'global:\n  scrape_interval: 1m\n' >"$BENCH_TMP/prom.yml"
  prometheus --config.file="$BENCH_TMP/prom.yml" --storage.tsdb.path="$BENCH_TMP/data" \
    --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$port" >"$BENCH_TMP/prom.log" 2>&1 &
  BENCH_PIDS+=("$!")
  wait_ready "$URL/-/ready" || bench_die "prometheus did not start: $(tail -3 "$BENCH_TMP/prom.log")"
}
start_prometheus
t0=$(clock)
(cd "$BENCH_TMP" && promtool tsdb create-blocks-from rules --start="$START" --end="$END" --url="$URL" \
  --eval-interval=60s --output-dir="$BENCH_TMP/rules" "$SRC/etc/prometheus/bottleneckd-recording.yml" \
  >"$BENCH_TMP/rules.log" 2>&1) || bench_die "rules backfill failed: $(tail -3 "$BENCH_TMP/rules.log")"
echo "recording rules backfilled over 24 h in $(took "$t0") s"
kill "${BENCH_PIDS[-1]}"; wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
cp -r "$BENCH_TMP/rules"/* "$BENCH_TMP/data/"
start_prometheus
echo
echo "## recording rules against the truth"
python3 "$SRC/bench/fleet_scale_check.py" rules "$URL" "$BENCH_TMP/truth.json" || true
echo
echo "## the fleet dashboard's panels over 24 h ($HOSTS hosts, 90 s steps)"
DASH_STEP=90 DASH_RATE_INTERVAL=4m python3 "$SRC/tests/integration/dashboards.py" query "$URL" "$START" "$END" \
  "$SRC/etc/grafana/bottleneckd-fleet.json" >"$BENCH_TMP/dash.json"
python3 - "$BENCH_TMP/dash.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| panel | series | seconds |")
print("|---|---|---|")
for t in r:
    print("| %s (%s) | %d | %.3f |" % (t["panel"], t["ref"], t["series"], t["seconds"]))
print("| all %d targets | | %.3f |" % (len(r), sum(t["seconds"] for t in r)))
PY
echo
echo "## the fleet report over 24 h"
echo
echo "| hosts | selector | seconds (median of 3) | where the last run's time went (--log.level=debug) |"
echo "|---|---|---|---|"
for sel in '{instance="host0000:9858"}' '{instance=~"host00[0-9][0-9]:9858"}' '{}'; do
  times=()
  for _ in 1 2 3; do
    t0=$(clock)
    "$BIN" --report --prometheus.url "$URL" --since 25h --selector "$sel" --format json --log.level=debug \
      >"$BENCH_TMP/report.json" 2>"$BENCH_TMP/report.err"
    times+=("$(took "$t0")")
  done
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["instances"]))' "$BENCH_TMP/report.json")
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "| $n | \`$sel\` | $med | $(sed -n 's/^bottleneckd: report: //p' "$BENCH_TMP/report.err" | tail -n 1) |"
done
echo
python3 "$SRC/bench/fleet_scale_check.py" report "$BENCH_TMP/report.json" "$BENCH_TMP/truth.json" || true
