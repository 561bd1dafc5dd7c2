#!/usr/bin/env bash
# Issue 17's kernel-file campaign through the real binary: a copy of the
# seed-box fixture (tests/fixtures/seed-box, modelled on the seed mails'
# box) with files a hostile or unlucky host serves: a FIFO for
# /proc/softirqs and for an operstate, a counter cut mid-number
# (80568280 -> 8056), a garbled counter, a negative netstat value, a
# /proc/interrupts cut mid-line, a PCI vendor that is not hex. `--once` and
# the daemon must neither hang nor crash; the exposition passes promtool;
# no series carries a number the files did not hold (8056 anywhere, a
# negative); each bad file is counted in
# bottleneckd_collector_read_errors_total or fails its collector
# (success 0), and is named in the log. SIGTERM stops the daemon at once.
# A soaker that cannot start there is said once, not every tick.
#
# usage: hostile_tree_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=hostile_tree_test
BIN=${1:?usage: hostile_tree_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: hostile_tree_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 90 "$@"
integ_init
integ_require_tools promtool curl

T="$INTEG_TMP/tree"
cp -a "$SRC/tests/fixtures/seed-box" "$T"
NET="$T/sys/class/net"
rm "$T/proc/softirqs" && mkfifo "$T/proc/softirqs"
printf '8056' >"$NET/em0/statistics/rx_packets"   # was 80568280\n: cut mid-number
printf 'garbage\n' >"$NET/em1/statistics/rx_dropped"
rm "$NET/em2/operstate" && mkfifo "$NET/em2/operstate"
sed -i '2s/ [0-9][0-9]*$/ -7/' "$T/proc/net/netstat"  # the last value of the first table: negative
head -c -20 "$T/proc/interrupts" >"$T/proc/interrupts.cut" && mv "$T/proc/interrupts.cut" "$T/proc/interrupts"
VENDOR=$(ls -d "$T"/sys/devices/pci0000:00/0000:00:1e.0/vendor)
printf '0xzz86\n' >"$VENDOR"
printf 'collectors:\n  irqtime: {mode: off}\n' >"$INTEG_TMP/c.yaml"
FLAGS=(--config.file="$INTEG_TMP/c.yaml" --path.procfs="$T/proc" --path.sysfs="$T/sys" --path.ethtool="$T/ethtool")

rc=0
timeout 30 "$BIN" "${FLAGS[@]}" --once >"$INTEG_TMP/once.prom" 2>"$INTEG_TMP/once.log" || rc=$?
if [ "$rc" -eq 0 ]; then
  integ_pass "--once over the hostile tree: exit 0 (no hang, no crash)"
else
  integ_die "--once over the hostile tree: exit $rc: $(tail -n 5 "$INTEG_TMP/once.log")"
fi
if out=$(promtool check metrics <"$INTEG_TMP/once.prom" 2>&1); then
  integ_pass "promtool check metrics: the exposition parses"
else
  # promtool also lints (e.g. counters named without _total); only parse errors fail here.
  if grep -qiE 'error parsing|text format parsing error' <<<"$out"; then
    integ_fail "promtool: $out"
  else
    integ_pass "promtool parses the exposition (lint notes only)"
  fi
fi
P="$INTEG_TMP/once.prom"
# series_value NAME LABELS: the value of NAME{LABELS} (exact label set text).
series_value() { grep -F "$1{$2} " "$P" | awk '{print $2}' | head -n 1; }

if grep -vE '^#' "$P" | awk '{print $NF}' | grep -qxE '8056|-[0-9.e+]+'; then
  integ_fail "a series carries 8056 or a negative value: $(grep -vE '^#' "$P" | grep -E ' (8056|-[0-9.e+]+)$' | head -3)"
else
  integ_pass "no series carries the cut number 8056 or a negative value"
fi
if grep -q 'bottleneckd_network_receive_packets_total{interface="em0"}' "$P"; then
  integ_fail "em0's rx_packets was cut mid-number but is exported: $(grep 'receive_packets_total{interface="em0"}' "$P")"
else
  integ_pass "em0's cut rx_packets is left out"
fi
v=$(series_value bottleneckd_network_receive_packets_total 'interface="em1"')
[ -n "$v" ] && integ_pass "em1's good counters stay (rx_packets $v)" || integ_fail "em1's rx_packets is missing"
netdev_errors=$(series_value bottleneckd_collector_read_errors_total 'collector="netdev"')
if [ "${netdev_errors%.*}" -ge 3 ] 2>/dev/null; then
  integ_pass "netdev read errors counted: $netdev_errors (cut rx_packets, garbled rx_dropped, FIFO operstate)"
else
  integ_fail "netdev read errors: '$netdev_errors', want >= 3"
fi
[ "$(series_value bottleneckd_collector_degraded 'collector="netdev"')" = 1 ] &&
  integ_pass "netdev is degraded, not failed" || integ_fail "netdev not marked degraded"
pci_errors=$(series_value bottleneckd_collector_read_errors_total 'collector="pci"')
[ "${pci_errors%.*}" -ge 1 ] 2>/dev/null && integ_pass "pci read errors counted: $pci_errors (vendor not hex)" ||
  integ_fail "pci read errors: '$pci_errors', want >= 1"
for c in softirqs interrupts sockets; do
  v=$(series_value bottleneckd_collector_success "collector=\"$c\"")
  [ "$v" = 0 ] && integ_pass "$c: whole file refused, success 0" || integ_fail "$c: success '$v', want 0"
done
for want in "proc/softirqs: a FIFO" "em2/operstate: a FIFO" "em0/statistics/rx_packets: ends mid-line" \
  "negative value -7" "interrupts: ends mid-line" "0000:00:1e.0/vendor"; do
  grep -qF -- "$want" "$INTEG_TMP/once.log" && integ_pass "logged: $want" || integ_fail "not logged: $want"
done

# The daemon over the same tree: serves, and SIGTERM stops it at once.
integ_start_bottleneckd PORT hostile "$BIN" "${FLAGS[@]}"
PID=$INTEG_LAST_PID
if curl -fsS --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$INTEG_TMP/scrape.prom"; then
  integ_pass "the daemon serves /metrics over the hostile tree"
else
  integ_fail "scrape failed"
fi
kill -TERM "$PID"
stopped=no
for ((i = 0; i < 150; i++)); do kill -0 "$PID" 2>/dev/null || { stopped=yes; break; }; sleep 0.1; done
[ "$stopped" = yes ] && integ_pass "SIGTERM stopped the daemon within 15 s" || integ_fail "SIGTERM did not stop it in 15 s"

# A soaker that cannot start over a fixture tree (it has no cpuinfo) is
# retried every tick but said once, not every tick: 0.1 s ticks until the
# daemon has taken 20 samples, then one "soaker did not start" line.
printf 'interval: 0.1s\ncollectors:\n  irqtime: {mode: off}\n' >"$INTEG_TMP/fast.yaml"
integ_start_bottleneckd PORT soakerless "$BIN" --config.file="$INTEG_TMP/fast.yaml" --path.procfs="$T/proc" \
  --path.sysfs="$T/sys" --path.ethtool="$T/ethtool" --soaker
PID=$INTEG_LAST_PID
samples() {
  local n
  n=$(curl -fsS --max-time 5 "http://127.0.0.1:$PORT/metrics" | awk '$1 == "bottleneckd_samples_total" {print $2}')
  [ "${n%.*}" -ge 20 ] 2>/dev/null
}
if integ_wait_for 30 "20 samples at 0.1 s" samples; then
  said=$(grep -c 'soaker did not start' "$INTEG_TMP/bottleneckd-soakerless.log" || true)
  [ "$said" = 1 ] && integ_pass "a soaker that cannot start is said once over 20 ticks" ||
    integ_fail "soaker failure logged $said times over 20 ticks, want 1"
else
  integ_fail "the daemon took no 20 samples at 0.1 s"
fi
kill -TERM "$PID"

integ_finish
