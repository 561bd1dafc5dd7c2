#!/usr/bin/env bash
# Integration test with the real Prometheus server (Debian's `prometheus`
# package, 2.42): two bottleneckd daemons, one replaying the seed-box fixture
# tree and one live on this host, are scraped every second by a Prometheus
# started on a free loopback port; the assertions go through its query API.
#
# Usage: prometheus_scrape_test.sh BOTTLENECKD_BINARY SOURCE_DIR
# (ctest passes both; see tests/CMakeLists.txt). Whole run bounded to 90 s.
set -uo pipefail

TEST_NAME=prometheus_scrape_test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integ_bound_time 90 "$@"

[ $# -eq 2 ] || integ_die "usage: $0 BOTTLENECKD_BINARY SOURCE_DIR"
BIN="$1"
SRC="$2"
FIXTURE="$SRC/tests/fixtures/seed-box"
[ -x "$BIN" ] || integ_die "bottleneckd binary '$BIN' is missing or not executable"
for d in proc sys ethtool; do
  [ -d "$FIXTURE/$d" ] || integ_die "fixture directory $FIXTURE/$d is missing"
done
integ_require_tools prometheus promtool curl "$INTEG_PYTHON" timeout awk
integ_init

# --- the two exporters --------------------------------------------------------
printf 'interval: 1s\n' >"$INTEG_TMP/bottleneckd.yaml"
integ_start_bottleneckd FIXTURE_PORT fixture "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml" \
  --path.procfs="$FIXTURE/proc" --path.sysfs="$FIXTURE/sys" --path.ethtool="$FIXTURE/ethtool"
FIXTURE_PID="$INTEG_LAST_PID"
integ_start_bottleneckd LIVE_PORT live "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml"
LIVE_PID="$INTEG_LAST_PID"

# --- Prometheus ---------------------------------------------------------------
PROM_CONFIG="$INTEG_TMP/prometheus.yml"
cat >"$PROM_CONFIG" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: fixture
    static_configs:
      - targets: ['127.0.0.1:$FIXTURE_PORT']
  - job_name: live
    static_configs:
      - targets: ['127.0.0.1:$LIVE_PORT']
EOF
if out="$(promtool check config "$PROM_CONFIG" 2>&1)"; then
  integ_pass "promtool check config accepts the generated prometheus.yml"
else
  integ_fail "promtool check config rejects the generated prometheus.yml: $out"
fi

integ_start_prometheus "$PROM_CONFIG"

# Prints "job health lastError" per active target.
targets_state() {
  curl -sS -m 5 "$PROM_URL/api/v1/targets?state=active" | "$INTEG_PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
for t in d["data"]["activeTargets"]:
    print(t["labels"].get("job", "?"), t["health"], t.get("lastError", "") or "-")
'
}
both_targets_up() {
  local s
  s="$(targets_state 2>/dev/null)" || return 1
  grep -q '^fixture up ' <<<"$s" && grep -q '^live up ' <<<"$s"
}
integ_log "waiting (up to 30 s) for Prometheus to report both targets up"
if integ_wait_for 30 "both targets up in /api/v1/targets" both_targets_up; then
  integ_pass "/api/v1/targets: jobs fixture and live are both up"
else
  integ_die "targets not up after 30 s: $(targets_state 2>&1 | tr '\n' ';')"
fi

# rate(...[10s]) needs two samples inside the window; wait for five scrapes.
enough_scrapes() {
  local line
  line="$(integ_query 'min(count_over_time(up[1m]))' 2>/dev/null)" || return 1
  [ -n "$line" ] && integ_num "$(integ_value "$line")" '>=' 5
}
integ_log "waiting (up to 20 s) for at least 5 scrapes of each target"
integ_wait_for 20 "5 scrapes of each target" enough_scrapes || integ_die "fewer than 5 scrapes after 20 s"

# --- assertions ---------------------------------------------------------------
integ_log "checking through the query API at $PROM_URL"

# Every target's last scrape: up, no error.
state="$(targets_state)"
for job in fixture live; do
  line="$(grep "^$job " <<<"$state")"
  if [ "$(wc -l <<<"$line")" -eq 1 ] && [ "$line" = "$job up -" ]; then
    integ_pass "target $job: health up, lastError empty"
  else
    integ_fail "target $job: expected one target 'up' with no lastError, got: $line"
  fi
done

# up == 1 for both jobs, and no scrape failed since the first one.
up="$(integ_query 'up')"
for job in fixture live; do
  line="$(grep -E "(^|,)job=$job(,|$(printf '\t'))" <<<"$up")"
  if [ -n "$line" ] && [ "$(wc -l <<<"$line")" -eq 1 ] && integ_num "$(integ_value "$line")" == 1; then
    integ_pass "up{job=\"$job\"} == 1"
  else
    integ_fail "up{job=\"$job\"}: expected one series equal to 1, got: ${line:-nothing}"
  fi
  line="$(integ_query "min_over_time(up{job=\"$job\"}[1m])")"
  if [ -n "$line" ] && integ_num "$(integ_value "$line")" == 1; then
    integ_pass "min_over_time(up{job=\"$job\"}[1m]) == 1 (no failed scrape)"
  else
    integ_fail "min_over_time(up{job=\"$job\"}[1m]): a scrape failed, got: ${line:-nothing}"
  fi
done

# The fixture's em0 receive counter reaches Prometheus unchanged.
RX_FILE="$FIXTURE/sys/class/net/em0/statistics/rx_packets"
want="$(tr -d '[:space:]' <"$RX_FILE")"
line="$(integ_query 'bottleneckd_network_receive_packets_total{job="fixture",interface="em0"}')"
if [ -n "$want" ] && [ -n "$line" ] && [ "$(wc -l <<<"$line")" -eq 1 ] &&
   integ_num "$(integ_value "$line")" == "$want"; then
  integ_pass "bottleneckd_network_receive_packets_total{job=\"fixture\",interface=\"em0\"} == $want (from $RX_FILE)"
else
  integ_fail "em0 rx packets: want $want (from $RX_FILE), got: ${line:-nothing}"
fi

# The seed box's em0 bus path as Prometheus stored it: PCI-X 133 MHz / 64-bit
# (its bridge's PCI-X secondary status in config space, README), 133.33 MHz x 8
# bytes = 1066666666.67 B/s; and on this machine every NIC with a PCI function
# has a path with a capacity.
line="$(integ_query 'bottleneckd_pci_link_info{job="fixture",interface="em0",bus="pcix",speed="133MHz",width="64bit"}')"
if [ -n "$line" ] && [ "$(wc -l <<<"$line")" -eq 1 ]; then
  integ_pass "bottleneckd_pci_link_info: em0 on a PCI-X 133MHz 64bit segment"
else
  integ_fail "em0 pci_link_info: want one pcix/133MHz/64bit series, got: ${line:-nothing}"
fi
line="$(integ_query 'bottleneckd_bus_capacity_bytes_per_second{job="fixture",interface="em0"}')"
if [ -n "$line" ] && integ_num "$(integ_value "$line")" '>' 1066666666 && integ_num "$(integ_value "$line")" '<' 1066666667; then
  integ_pass "bottleneckd_bus_capacity_bytes_per_second{interface=\"em0\"} == 1066.7 MB/s"
else
  integ_fail "em0 bus capacity: want 1066666666.67, got: ${line:-nothing}"
fi
live_nics="$(integ_query 'bottleneckd_network_info{job="live",device!=""}' | wc -l)"
live_paths="$(integ_query 'count by (interface) (bottleneckd_bus_capacity_bytes_per_second{job="live"})' | wc -l)"
if [ "$live_nics" -gt 0 ] && [ "$live_paths" -eq "$live_nics" ]; then
  integ_pass "live: all $live_nics PCI-backed interfaces have a bus path with a capacity"
else
  integ_fail "live: $live_nics PCI-backed interfaces but $live_paths with a bus capacity"
fi

# bottleneckd_collector_success == 1 for every collector enabled by default
# (the [on] list of --help), in both jobs, and nothing else reports 0.
mapfile -t COLLECTORS < <("$BIN" --help | sed -n '/^Collectors/,/^$/p' | awk '$2 == "[on]" { print $1 }')
[ "${#COLLECTORS[@]}" -gt 0 ] || integ_die "could not read the default collectors from '$BIN --help'"
for job in fixture live; do
  got="$(integ_query "bottleneckd_collector_success{job=\"$job\"}")"
  bad=""
  for c in "${COLLECTORS[@]}"; do
    line="$(grep -E "(^|,)collector=$c(,|$)" <<<"${got//$'\t'/,}" )"
    if [ -z "$line" ]; then bad+=" $c(missing)"; elif ! integ_num "${line##*,}" == 1; then bad+=" $c(${line##*,})"; fi
  done
  not_one="$(integ_query "bottleneckd_collector_success{job=\"$job\"} != 1")"
  if [ -z "$bad" ] && [ -z "$not_one" ]; then
    integ_pass "bottleneckd_collector_success{job=\"$job\"} == 1 for all ${#COLLECTORS[@]} collectors (${COLLECTORS[*]})"
  else
    integ_fail "bottleneckd_collector_success{job=\"$job\"}: missing or not 1:${bad} ${not_one//$'\n'/; }"
  fi
done

# Live CPU metrics: one series per CPU listed in this host's /proc/stat.
mapfile -t CPUS < <(awk '/^cpu[0-9]+ / { sub("cpu", "", $1); print $1 }' /proc/stat | sort -n)
NCPU="${#CPUS[@]}"
[ "$NCPU" -gt 0 ] || integ_die "no cpuN lines in /proc/stat"
want_cpus="${CPUS[*]}"
cpus_of() {  # integ_query lines on stdin -> their distinct cpu labels, sorted, space separated
  awk -F '\t' '{ n = split($1, kv, ","); for (i = 1; i <= n; i++) if (kv[i] ~ /^cpu=/) print substr(kv[i], 5) }' |
    sort -un | paste -sd ' ' -
}

rate="$(integ_query 'rate(bottleneckd_cpu_seconds_total{job="live"}[10s])')"
modes="$(while IFS= read -r l; do [ -n "$l" ] && integ_label "$l" mode; done <<<"$rate" | sort -u)"
bad=""
for m in $modes; do
  per_mode="$(grep -E "(^|,)mode=$m(,|$(printf '\t'))" <<<"$rate")"
  [ "$(wc -l <<<"$per_mode")" -eq "$NCPU" ] && [ "$(cpus_of <<<"$per_mode")" = "$want_cpus" ] ||
    bad+=" mode=$m: cpus [$(cpus_of <<<"$per_mode")]"
done
if [ -n "$modes" ] && grep -qx idle <<<"$modes" && [ -z "$bad" ]; then
  integ_pass "rate(bottleneckd_cpu_seconds_total{job=\"live\"}[10s]): one series per CPU ($NCPU: $want_cpus) for each of the modes $(echo $modes)"
else
  integ_fail "rate(bottleneckd_cpu_seconds_total{job=\"live\"}[10s]): want CPUs [$want_cpus] per mode, got modes [$(echo $modes)]$bad"
fi

# All modes of one CPU add up to about one CPU-second per second.
per_cpu="$(integ_query 'sum by (cpu) (rate(bottleneckd_cpu_seconds_total{job="live"}[10s]))')"
bad=""
while IFS= read -r l; do
  [ -n "$l" ] || continue
  v="$(integ_value "$l")"
  integ_num "$v" '>=' 0.5 && integ_num "$v" '<=' 1.5 || bad+=" cpu$(integ_label "$l" cpu)=$v"
done <<<"$per_cpu"
if [ "$(cpus_of <<<"$per_cpu")" = "$want_cpus" ] && [ -z "$bad" ]; then
  integ_pass "sum by (cpu) of the mode rates is within [0.5, 1.5] s/s for each of the $NCPU CPUs"
else
  integ_fail "sum by (cpu) of the mode rates: want [0.5, 1.5] for CPUs [$want_cpus], got CPUs [$(cpus_of <<<"$per_cpu")]$bad"
fi

busy="$(integ_query 'bottleneckd_cpu_busy_ratio{job="live",source="accounting"}')"
bad=""
while IFS= read -r l; do
  [ -n "$l" ] || continue
  v="$(integ_value "$l")"
  integ_num "$v" '>=' 0 && integ_num "$v" '<=' 1 || bad+=" cpu$(integ_label "$l" cpu)=$v"
done <<<"$busy"
if [ -n "$busy" ] && [ "$(wc -l <<<"$busy")" -eq "$NCPU" ] && [ "$(cpus_of <<<"$busy")" = "$want_cpus" ] &&
   [ -z "$bad" ]; then
  integ_pass "bottleneckd_cpu_busy_ratio{job=\"live\",source=\"accounting\"} in [0, 1] for each of the $NCPU CPUs"
else
  integ_fail "bottleneckd_cpu_busy_ratio{job=\"live\",source=\"accounting\"}: want one value in [0, 1] per CPU [$want_cpus], got: ${busy//$'\n'/; }$bad"
fi

# Scrapes carried samples and Prometheus rejected none of them.
for job in fixture live; do
  line="$(integ_query "scrape_samples_scraped{job=\"$job\"}")"
  if [ -n "$line" ] && integ_num "$(integ_value "$line")" '>' 0; then
    integ_pass "scrape_samples_scraped{job=\"$job\"} = $(integ_value "$line") > 0"
  else
    integ_fail "scrape_samples_scraped{job=\"$job\"}: want > 0, got: ${line:-nothing}"
  fi
done

prom_metrics="$(curl -sS -m 5 "$PROM_URL/metrics")" || integ_die "cannot read Prometheus's own /metrics"
checked=0
for m in prometheus_target_scrapes_sample_out_of_order_total \
         prometheus_target_scrapes_sample_duplicate_timestamp_total \
         prometheus_target_scrapes_sample_out_of_bounds_total \
         prometheus_target_scrapes_exceeded_sample_limit_total \
         prometheus_target_scrapes_exceeded_body_size_limit_total \
         prometheus_target_scrapes_exemplar_out_of_order_total \
         prometheus_target_scrape_pool_exceeded_label_limits_total \
         prometheus_target_scrape_pools_failed_total \
         prometheus_target_scrape_pool_reloads_failed_total; do
  v="$(awk -v m="$m" '$1 == m { print $2 }' <<<"$prom_metrics")"
  [ -n "$v" ] || continue  # not exported by this Prometheus version
  checked=$((checked + 1))
  if integ_num "$v" == 0; then integ_pass "prometheus: $m == 0"; else integ_fail "prometheus: $m == $v, want 0"; fi
done
[ "$checked" -gt 0 ] || integ_fail "prometheus exported none of the prometheus_target_scrape* error counters"

scrape_warnings="$(grep -E 'level=(warn|error)' "$PROM_LOG" | grep -i scrape)"
if [ -z "$scrape_warnings" ]; then
  integ_pass "prometheus logged no scrape warnings or errors"
else
  integ_fail "prometheus logged scrape problems: $scrape_warnings"
fi

for name in fixture live; do
  pid_var="${name^^}_PID"
  if kill -0 "${!pid_var}" 2>/dev/null; then
    integ_pass "bottleneckd ($name) is still running after the scrapes"
  else
    integ_fail "bottleneckd ($name) pid ${!pid_var} is no longer running"
  fi
  if grep -q 'level=error' "$INTEG_TMP/bottleneckd-$name.log"; then
    integ_fail "bottleneckd ($name) logged errors: $(grep 'level=error' "$INTEG_TMP/bottleneckd-$name.log" | head -n 3)"
  else
    integ_pass "bottleneckd ($name) logged no errors"
  fi
done

integ_finish
