#!/usr/bin/env bash
# irqtime in the daemon on this host (docs/irqtime.md), the daemon as a user
# runs it:
# - as root with the default config: the program loads (tp_btf: this kernel
#   has BTF), the measured families are exported and count;
# - kernel BTF missing (collectors.irqtime.btf_path pointing nowhere): it
#   attaches as raw tracepoints and says so in its one load line;
# - without CAP_BPF and CAP_PERFMON (root under setpriv with an empty bounding
#   set): exactly one log line about irqtime, naming the capabilities; the
#   daemon serves /metrics as before, with no measured family and the
#   accounting interrupt ratio;
# - the same with collectors.irqtime.mode: on: the daemon refuses to start
#   and says why.
#
# usage: irqtime_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=irqtime_test
BIN=${1:?usage: irqtime_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: irqtime_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
integ_require_tools curl setpriv grep
[ "$(id -u)" -eq 0 ] || integ_die "needs root: it loads an eBPF program"

scrape() { curl -sf -m 5 "http://127.0.0.1:$1/metrics" >"$2"; }
stop() {
  kill -TERM "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
# metric FILE NAME LABELS: the sample's value, "" when absent.
metric() { awk -v k="$2{$3}" '$1 == k { print $2 }' "$1"; }

# 1. Root, default config.
integ_start_bottleneckd PORT root "$BIN"
PID=$INTEG_LAST_PID
LOG="$INTEG_TMP/bottleneckd-root.log"
sleep 2.5
scrape "$PORT" "$INTEG_TMP/root.1"
sleep 1.2
scrape "$PORT" "$INTEG_TMP/root.2"
stop "$PID"
if grep -q 'msg="irqtime loaded: measuring hardirq and softirq time with eBPF" attach=tp_btf' "$LOG"; then
  integ_pass "root: loaded with attach=tp_btf"
else
  integ_fail "root: no tp_btf load line: $(grep irqtime "$LOG")"
fi
t1="$(metric "$INTEG_TMP/root.1" bottleneckd_softirq_seconds_total 'cpu="0",vector="timer"')"
t2="$(metric "$INTEG_TMP/root.2" bottleneckd_softirq_seconds_total 'cpu="0",vector="timer"')"
if [ -n "$t1" ] && [ -n "$t2" ] && awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > a) }'; then
  integ_pass "root: cpu0's timer softirq seconds count ($t1 -> $t2)"
else
  integ_fail "root: bottleneckd_softirq_seconds_total{cpu=\"0\",vector=\"timer\"} did not grow ('$t1' -> '$t2')"
fi
if [ "$(metric "$INTEG_TMP/root.2" bottleneckd_irqtime_info 'attach="tp_btf"')" = 1 ] &&
  [ "$(metric "$INTEG_TMP/root.2" bottleneckd_collector_success 'collector="irqtime"')" = 1 ] &&
  [ -n "$(metric "$INTEG_TMP/root.2" bottleneckd_cpu_interrupt_ratio 'cpu="0",source="ebpf"')" ]; then
  integ_pass "root: irqtime_info, collector_success and the ebpf interrupt ratio are exported"
else
  integ_fail "root: irqtime_info/collector_success/cpu_interrupt_ratio{source=\"ebpf\"} missing"
fi

# 2. No kernel BTF.
printf 'collectors:\n  irqtime:\n    btf_path: /nonexistent/vmlinux\n' >"$INTEG_TMP/nobtf.yaml"
integ_start_bottleneckd PORT nobtf "$BIN" --config.file="$INTEG_TMP/nobtf.yaml"
PID=$INTEG_LAST_PID
sleep 1.5
scrape "$PORT" "$INTEG_TMP/nobtf.1"
stop "$PID"
if grep -q 'msg="irqtime loaded: .*attach="raw_tp (no kernel BTF at /nonexistent/vmlinux)"' \
  "$INTEG_TMP/bottleneckd-nobtf.log" &&
  [ "$(metric "$INTEG_TMP/nobtf.1" bottleneckd_irqtime_info 'attach="raw_tp"')" = 1 ]; then
  integ_pass "no BTF: attached as raw tracepoints, said once, exported as attach=raw_tp"
else
  integ_fail "no BTF: $(grep irqtime "$INTEG_TMP/bottleneckd-nobtf.log")"
fi

# 3. No capabilities.
printf '#!/bin/sh\nexec setpriv --bounding-set=-all --inh-caps=-all -- %s "$@"\n' "$BIN" >"$INTEG_TMP/bottleneckd-nocaps"
chmod +x "$INTEG_TMP/bottleneckd-nocaps"
integ_start_bottleneckd PORT nocaps "$INTEG_TMP/bottleneckd-nocaps"
PID=$INTEG_LAST_PID
LOG="$INTEG_TMP/bottleneckd-nocaps.log"
sleep 2.5
scrape "$PORT" "$INTEG_TMP/nocaps.1" || integ_fail "no capabilities: /metrics did not answer"
stop "$PID"
# (the test's own directory is named irqtime_test.*: match the message)
n="$(grep -c 'msg="irqtime' "$LOG")"
line="$(grep 'msg="irqtime' "$LOG")"
if [ "$n" = 1 ] && grep -q 'CAP_BPF and CAP_PERFMON not held' <<<"$line" && grep -q 'level=info' <<<"$line"; then
  integ_pass "no capabilities: one log line: $line"
else
  integ_fail "no capabilities: $n irqtime log lines: $line"
fi
if grep -q '^bottleneckd_cpu_interrupt_seconds_total\|^bottleneckd_irqtime_info\|collector="irqtime"' \
  "$INTEG_TMP/nocaps.1"; then
  integ_fail "no capabilities: measured families exported anyway"
elif [ -n "$(metric "$INTEG_TMP/nocaps.1" bottleneckd_cpu_interrupt_ratio 'cpu="0",source="accounting"')" ] &&
  grep -q '^bottleneckd_verdict{' "$INTEG_TMP/nocaps.1"; then
  integ_pass "no capabilities: the daemon runs as before (accounting interrupt ratio, verdict), no measured family"
else
  integ_fail "no capabilities: the usual families are missing"
fi

# 4. No capabilities, mode on: refuses to start.
printf 'collectors:\n  irqtime:\n    mode: "on"\n' >"$INTEG_TMP/on.yaml"
timeout 20 "$INTEG_TMP/bottleneckd-nocaps" --config.file="$INTEG_TMP/on.yaml" --web.listen-address=127.0.0.1:0 \
  --path.state="$INTEG_TMP/state-on" --control.socket="$INTEG_TMP/state-on/control.sock" >"$INTEG_TMP/on.log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'level=error msg="irqtime off: .*CAP_BPF and CAP_PERFMON not held.*mode=on' "$INTEG_TMP/on.log"; then
  integ_pass "no capabilities, mode on: exit 1 with the reason"
else
  integ_fail "no capabilities, mode on: exit $rc: $(tail -n 3 "$INTEG_TMP/on.log")"
fi
integ_finish
