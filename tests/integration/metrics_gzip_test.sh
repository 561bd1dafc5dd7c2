#!/usr/bin/env bash
# gzip-coded /metrics (exporters/http/gzip_body.h) with real clients: the
# daemon replays the seed-box fixture tree on a free loopback port; curl asks
# for gzip (--compressed, and a raw Accept-Encoding header), gzip -dc inflates
# the body, which must equal the identity scrape except for the volatile lines
# (process_*, collector durations, sample counts and time), and promtool checks
# it. Then the real Prometheus server (which sends Accept-Encoding: gzip)
# scrapes it with up == 1.
#
# Usage: metrics_gzip_test.sh BOTTLENECKD_BINARY SOURCE_DIR (ctest passes
# both; tests/CMakeLists.txt). Whole run bounded to 60 s.
set -uo pipefail

TEST_NAME=metrics_gzip_test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integ_bound_time 60 "$@"

[ $# -eq 2 ] || integ_die "usage: $0 BOTTLENECKD_BINARY SOURCE_DIR"
BIN="$1"
SRC="$2"
FIXTURE="$SRC/tests/fixtures/seed-box"
[ -x "$BIN" ] || integ_die "bottleneckd binary '$BIN' is missing or not executable"
integ_require_tools curl gzip promtool prometheus "$INTEG_PYTHON"
integ_init

printf 'interval: 1s\n' >"$INTEG_TMP/bottleneckd.yaml"
integ_start_bottleneckd PORT fixture "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml" \
  --path.procfs="$FIXTURE/proc" --path.sysfs="$FIXTURE/sys" --path.ethtool="$FIXTURE/ethtool"
URL="http://127.0.0.1:$PORT/metrics"
sleep 2.2  # two samples: the window families are in every scrape compared

# The lines whose values change from scrape to scrape, values masked.
stable() {
  sed -E 's/^((process_[a-z_]+|bottleneckd_collector_duration_seconds\{[^}]*\}|bottleneckd_samples_total|bottleneckd_last_sample_timestamp_seconds) ).*/\1<volatile>/' "$1"
}
header() {  # header NAME FILE: the value of one response header, CR stripped
  awk -v n="$(tr '[:upper:]' '[:lower:]' <<<"$1")" -F': ' \
    'tolower($1) == n { sub(/\r$/, "", $2); print $2 }' "$2"
}

curl -sS -m 10 -D "$INTEG_TMP/plain.h" -o "$INTEG_TMP/plain" "$URL" || integ_die "identity scrape failed"
if [ -z "$(header Content-Encoding "$INTEG_TMP/plain.h")" ] && head -c 7 "$INTEG_TMP/plain" | grep -q '^# HELP'; then
  integ_pass "no Accept-Encoding: identity body, no Content-Encoding"
else
  integ_fail "no Accept-Encoding: got Content-Encoding '$(header Content-Encoding "$INTEG_TMP/plain.h")'"
fi

check_gzip() {  # check_gzip NAME CURL-ARGS...: one gzip scrape, raw body kept
  local name="$1"; shift
  curl -sS -m 10 -D "$INTEG_TMP/$name.h" -o "$INTEG_TMP/$name.gz" "$@" "$URL" || integ_die "$name scrape failed"
  local ce vary
  ce="$(header Content-Encoding "$INTEG_TMP/$name.h")"
  vary="$(header Vary "$INTEG_TMP/$name.h")"
  if [ "$ce" = gzip ] && [ "$vary" = Accept-Encoding ]; then
    integ_pass "$name: Content-Encoding: gzip, Vary: Accept-Encoding"
  else
    integ_fail "$name: Content-Encoding '$ce', Vary '$vary' (want gzip, Accept-Encoding)"
  fi
  if ! gzip -dc <"$INTEG_TMP/$name.gz" >"$INTEG_TMP/$name" 2>"$INTEG_TMP/$name.err"; then
    integ_fail "$name: gzip -dc cannot inflate the body: $(head -c 200 "$INTEG_TMP/$name.err")"
    return
  fi
  local raw inflated
  raw="$(stat -c %s "$INTEG_TMP/$name.gz")"
  inflated="$(stat -c %s "$INTEG_TMP/$name")"
  if [ "$(header Content-Length "$INTEG_TMP/$name.h")" = "$raw" ] && [ $((raw * 4)) -lt "$inflated" ]; then
    integ_pass "$name: Content-Length $raw B on the wire, $inflated B inflated"
  else
    integ_fail "$name: Content-Length '$(header Content-Length "$INTEG_TMP/$name.h")', $raw B on the wire, $inflated B inflated"
  fi
  if diff <(stable "$INTEG_TMP/plain") <(stable "$INTEG_TMP/$name") >"$INTEG_TMP/$name.diff"; then
    integ_pass "$name: gzip -dc of the body equals the identity scrape (volatile lines masked)"
  else
    integ_fail "$name: the inflated body differs from the identity scrape: $(head -n 6 "$INTEG_TMP/$name.diff")"
  fi
  local out
  if out="$(promtool check metrics <"$INTEG_TMP/$name" 2>&1)"; then
    integ_pass "$name: promtool check metrics accepts the inflated body"
  else
    integ_fail "$name: promtool check metrics: $(head -n 5 <<<"$out")"
  fi
}
# --compressed: curl's own list (deflate, gzip, br, zstd, whatever it was
# built with); -D keeps the headers, -o the body as sent (--raw: not decoded).
check_gzip compressed --compressed --raw
check_gzip header -H 'Accept-Encoding: gzip'

curl -sS -m 10 -D "$INTEG_TMP/q0.h" -o "$INTEG_TMP/q0" -H 'Accept-Encoding: gzip;q=0, deflate' "$URL" ||
  integ_die "gzip;q=0 scrape failed"
if [ -z "$(header Content-Encoding "$INTEG_TMP/q0.h")" ] && head -c 7 "$INTEG_TMP/q0" | grep -q '^# HELP'; then
  integ_pass "Accept-Encoding: gzip;q=0, deflate: identity"
else
  integ_fail "Accept-Encoding: gzip;q=0, deflate: got Content-Encoding '$(header Content-Encoding "$INTEG_TMP/q0.h")'"
fi

# --- the real Prometheus server ----------------------------------------------
cat >"$INTEG_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gzip
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
integ_start_prometheus "$INTEG_TMP/prometheus.yml"
scraped() {
  local line
  line="$(integ_query 'count_over_time(up{job="gzip"}[1m])' 2>/dev/null)" || return 1
  [ -n "$line" ] && integ_num "$(integ_value "$line")" '>=' 3
}
integ_wait_for 30 "3 scrapes by Prometheus" scraped || integ_die "Prometheus did not scrape 3 times in 30 s"
line="$(integ_query 'min_over_time(up{job="gzip"}[1m])')"
if [ -n "$line" ] && integ_num "$(integ_value "$line")" == 1; then
  integ_pass "Prometheus scrapes it with up == 1 (no failed scrape)"
else
  integ_fail "Prometheus: min_over_time(up[1m]) = ${line:-nothing}"
fi
line="$(integ_query 'bottleneckd_network_receive_packets_total{job="gzip",interface="em0"}')"
want="$(tr -d '[:space:]' <"$FIXTURE/sys/class/net/em0/statistics/rx_packets")"
if [ -n "$line" ] && integ_num "$(integ_value "$line")" == "$want"; then
  integ_pass "Prometheus stored em0's rx_packets ($want) from the scrape"
else
  integ_fail "Prometheus: em0 rx packets want $want, got ${line:-nothing}"
fi
if grep -q 'level=error\|gzip failed' "$INTEG_TMP/bottleneckd-fixture.log"; then
  integ_fail "bottleneckd logged: $(grep 'level=error\|gzip failed' "$INTEG_TMP/bottleneckd-fixture.log" | head -n 3)"
else
  integ_pass "bottleneckd logged no error and no gzip failure"
fi

integ_finish
