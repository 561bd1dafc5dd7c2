#!/usr/bin/env bash
# What one host costs a fleet's Prometheus (docs/performance-history.md "Fleet"):
#   series     the default config's series per host (non-comment lines of one
#              scrape, `--once` after two samples), by family, on this VM
#              (live), and on the fixture trees: the seeds' box, the PCIe box,
#              the 128-CPU large host with 1000 IRQs;
#   remote_write  a Prometheus agent scraping a daemon (live, and the large
#              host's tree) every SCRAPE s for SECONDS s and sending to a
#              Prometheus receiver: compressed bytes sent (its own
#              prometheus_remote_storage_bytes_total) per host per minute,
#              scaled to a 15 s scrape interval (bytes per sample x samples).
# Loopback only; every process is stopped at exit.
#
# usage: bench/fleet_series.sh BOTTLENECKD [SECONDS=60] [SCRAPE=5]
set -euo pipefail
BIN=$(readlink -f "${1:?usage: fleet_series.sh BOTTLENECKD [SECONDS] [SCRAPE]}")
SECONDS_RUN=${2:-60}
SCRAPE=${3:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$SRC/bench/lib.sh"
trap bench_cleanup EXIT
BENCH_TMP=$(mktemp -d)

tree_args() {  # fixture name, or "live"
  [ "$1" = live ] && return 0
  local f="$SRC/tests/fixtures/$1"
  echo "--path.procfs=$f/proc --path.sysfs=$f/sys --path.ethtool=$f/ethtool"
}

echo "## series per host (default config, one scrape)"
echo
echo "| host | series | families | largest families (series) |"
echo "|---|---|---|---|"
for t in live vm seed-box pcie-box large-host; do
  # shellcheck disable=SC2046
  "$BIN" $(tree_args "$t") --once >"$BENCH_TMP/$t.prom" 2>/dev/null || bench_die "--once on $t failed"
  series=$(grep -vc '^#' "$BENCH_TMP/$t.prom")
  families=$(grep -c '^# TYPE' "$BENCH_TMP/$t.prom")
  top=$(grep -v '^#' "$BENCH_TMP/$t.prom" | sed 's/[{ ].*//' | sort | uniq -c | sort -rn | head -4 |
        awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
  echo "| $t | $series | $families | $top |"
done
echo

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 300); do curl -sf -m 2 "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

echo "## remote_write per host (agent -> Prometheus receiver, scrape every ${SCRAPE}s for ${SECONDS_RUN}s)"
echo
echo "| host | series | samples sent | bytes sent | bytes/sample | KB per host per minute at 15 s |"
echo "|---|---|---|---|---|---|"
rport=$(free_port)
printf 'global:\n  scrape_interval: 1h\n' >"$BENCH_TMP/recv.yml"
prometheus --config.file="$BENCH_TMP/recv.yml" --storage.tsdb.path="$BENCH_TMP/recv" \
  --web.listen-address="127.0.0.1:$rport" --web.enable-remote-write-receiver >"$BENCH_TMP/recv.log" 2>&1 &
BENCH_PIDS+=("$!")
wait_ready "http://127.0.0.1:$rport/-/ready" || bench_die "receiver did not start"
for t in live large-host; do
  dport=$(free_port)
  # shellcheck disable=SC2046
  "$BIN" $(tree_args "$t") --web.listen-address="127.0.0.1:$dport" --path.state="$BENCH_TMP/state-$t" \
    --control.socket="$BENCH_TMP/ctl-$t.sock" >"$BENCH_TMP/d-$t.log" 2>&1 &
  BENCH_PIDS+=("$!")
  wait_ready "http://127.0.0.1:$dport/metrics" || bench_die "daemon on $t did not start"
  aport=$(free_port)
  printf 'global:\n  scrape_interval: %ss\nscrape_configs:\n  - job_name: bottleneckd\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\nremote_write:\n  - url: "http://127.0.0.1:%s/api/v1/write"\n' \
    "$SCRAPE" "$dport" "$rport" >"$BENCH_TMP/agent-$t.yml"
  prometheus --enable-feature=agent --config.file="$BENCH_TMP/agent-$t.yml" --storage.agent.path="$BENCH_TMP/agent-$t" \
    --web.listen-address="127.0.0.1:$aport" >"$BENCH_TMP/agent-$t.log" 2>&1 &
  BENCH_PIDS+=("$!")
  wait_ready "http://127.0.0.1:$aport/-/ready" || bench_die "agent for $t did not start"
  sleep "$SECONDS_RUN"
  m=$(curl -sf "http://127.0.0.1:$aport/metrics")
  bytes=$(awk '/^prometheus_remote_storage_bytes_total/ { s += $2 } END { print s + 0 }' <<<"$m")
  samples=$(awk '/^prometheus_remote_storage_samples_total/ { s += $2 } END { print s + 0 }' <<<"$m")
  series=$(grep -vc '^#' "$BENCH_TMP/$t.prom")
  awk -v b="$bytes" -v s="$samples" -v n="$series" -v t="$t" 'BEGIN {
    bps = s > 0 ? b / s : 0
    printf "| %s | %d | %d | %d | %.2f | %.1f |\n", t, n, s, b, bps, bps * n * 4 / 1024 }'
  kill "${BENCH_PIDS[-1]}" "${BENCH_PIDS[-2]}" 2>/dev/null || true
done
