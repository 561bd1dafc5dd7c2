#!/usr/bin/env bash
# The self-limit watchdog through the real binary over the seed-box fixture:
# with a budget no process can keep (cpu_percent 0.0001 over a 1 s window)
# the daemon logs one warn line naming the budget, its usage and the
# collectors it backs off, and exposes the back-off (bottleneckd_collector_backoff
# >= 2 for the expensive collectors, 1 for the others' absence,
# bottleneckd_self_limit_exceeded{resource="cpu"} 1, the budget gauges as
# configured); a reload with a roomy budget brings it back (one info line,
# factor 1). The process_* families come from the live process (checked
# against /proc/PID/limits and the pid's existence, not against their own
# output), in the daemon and in --once; promtool checks both expositions.
#
# usage: self_limit_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=self_limit_test
BIN=${1:?usage: self_limit_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: self_limit_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 60 "$@"
integ_init
integ_require_tools promtool curl

T="$SRC/tests/fixtures/seed-box"
FLAGS=(--path.procfs="$T/proc" --path.sysfs="$T/sys" --path.ethtool="$T/ethtool")
tight() {
  printf 'interval: 200ms\ncollectors:\n  irqtime: {mode: off}\n  threads:\n    targets:\n      - name: udpecho\n'
  printf 'limits:\n  cpu_percent: %s\n  cpu_window: 1s\n' "$1"
}
tight 0.0001 >"$INTEG_TMP/c.yaml"

check_exposition() {  # FILE WHAT
  local out
  if out=$(promtool check metrics <"$1" 2>&1); then
    integ_pass "promtool check metrics: $2"
  elif grep -qiE 'error parsing|text format parsing error' <<<"$out"; then
    integ_fail "promtool ($2): $out"
  else
    integ_pass "promtool parses $2 (lint notes only: $(head -c 200 <<<"$out"))"
  fi
}

# --once: the process_* families are there (the live process; goldens compare
# only their presence), and the exposition parses.
timeout 30 "$BIN" --config.file="$INTEG_TMP/c.yaml" "${FLAGS[@]}" --once >"$INTEG_TMP/once.prom" \
  2>"$INTEG_TMP/once.log" || integ_die "--once failed: $(tail -n 3 "$INTEG_TMP/once.log")"
for f in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes process_open_fds \
  process_max_fds process_start_time_seconds bottleneckd_self_limit_memory_budget_bytes; do
  grep -q "^$f " "$INTEG_TMP/once.prom" && integ_pass "--once exports $f" || integ_fail "--once lacks $f"
done
check_exposition "$INTEG_TMP/once.prom" "--once"

integ_start_bottleneckd PORT tight "$BIN" --config.file="$INTEG_TMP/c.yaml" "${FLAGS[@]}"
PID=$INTEG_LAST_PID
LOG="$INTEG_TMP/bottleneckd-tight.log"
scrape() { curl -fsS --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$INTEG_TMP/scrape.prom"; }
value() { awk -v n="$1" '$1 == n { print $2; exit }' "$INTEG_TMP/scrape.prom"; }
backed_off() { scrape && [ "$(value 'bottleneckd_collector_backoff{collector="threads"}')" != "" ] &&
  [ "$(value 'bottleneckd_collector_backoff{collector="threads"}')" != 1 ]; }
if integ_wait_for 20 "threads backed off" backed_off; then
  integ_pass "threads backed off: read every $(value 'bottleneckd_collector_backoff{collector="threads"}') ticks"
else
  integ_fail "no back-off: $(grep -E 'backoff|self_limit' "$INTEG_TMP/scrape.prom" | head -5)"
fi
for c in interrupts netdev pci; do
  v=$(value "bottleneckd_collector_backoff{collector=\"$c\"}")
  [ -n "$v" ] && [ "$v" != 1 ] && integ_pass "$c backed off too ($v)" || integ_fail "$c backoff '$v'"
done
for c in cpu softirqs sockets; do
  grep -qF "bottleneckd_collector_backoff{collector=\"$c\"}" "$INTEG_TMP/scrape.prom" &&
    integ_fail "$c is read every tick, yet has a backoff series" || integ_pass "$c is never backed off"
done
[ "$(value 'bottleneckd_self_limit_exceeded{resource="cpu"}')" = 1 ] && integ_pass "cpu over its budget: 1" ||
  integ_fail "exceeded{cpu} '$(value 'bottleneckd_self_limit_exceeded{resource="cpu"}')'"
[ "$(value 'bottleneckd_self_limit_exceeded{resource="memory"}')" = 0 ] && integ_pass "memory within: 0" ||
  integ_fail "exceeded{memory} '$(value 'bottleneckd_self_limit_exceeded{resource="memory"}')'"
# 0.0001 % of a CPU is 1e-06 CPUs; 512MiB the default.
if awk -v v="$(value bottleneckd_self_limit_cpu_budget_cores)" 'BEGIN { exit !(v > 0.99e-6 && v < 1.01e-6) }'; then
  integ_pass "the budget gauge is the configured 1e-06 CPUs"
else
  integ_fail "cpu budget '$(value bottleneckd_self_limit_cpu_budget_cores)'"
fi
[ "$(value bottleneckd_self_limit_memory_budget_bytes)" = 536870912 ] && integ_pass "memory budget 512 MiB" ||
  integ_fail "memory budget '$(value bottleneckd_self_limit_memory_budget_bytes)'"
v=$(value 'bottleneckd_collector_success{collector="threads"}')
[ "$v" = 1 ] && integ_pass "threads still succeeds while backed off" || integ_fail "threads success '$v'"
want=$(awk '/^Max open files/ {print $4}' "/proc/$PID/limits")
[ "$(value process_max_fds)" = "$want" ] && integ_pass "process_max_fds is the daemon's soft limit ($want)" ||
  integ_fail "process_max_fds '$(value process_max_fds)', /proc/$PID/limits says '$want'"
check_exposition "$INTEG_TMP/scrape.prom" "the daemon, backed off"

n=$(grep -c 'msg="over its own budget' "$LOG")
line=$(grep 'msg="over its own budget' "$LOG" | head -n 1)
[ "$n" = 1 ] && integ_pass "one warn line on entering" || integ_fail "$n warn lines on entering: $(head -c 300 "$LOG")"
for want in 'level=warn' 'resource=cpu' 'cpu_budget=0.0001%' 'collectors=interrupts,netdev,pci,threads' 'cpu_usage='; do
  grep -qF -- "$want" <<<"$line" && integ_pass "the warn line has $want" || integ_fail "warn line lacks $want: $line"
done

grep -q 'msg="back under its own budget' "$LOG" &&
  integ_fail "recovered under a budget no process can keep: $(grep 'back under' "$LOG" | head -n 1)" ||
  integ_pass "no recovery while still over the budget"

# A roomy budget on reload: back to every tick, one info line.
tight 100000 >"$INTEG_TMP/c.yaml"
kill -HUP "$PID"
recovered() { grep -q 'msg="back under its own budget' "$LOG"; }
if integ_wait_for 25 "recovery" recovered; then
  integ_pass "recovered: $(grep 'msg="back under its own budget' "$LOG" | head -n 1 | cut -c1-200)"
else
  integ_fail "no recovery line: $(tail -n 3 "$LOG")"
fi
grep 'msg="back under its own budget' "$LOG" | head -n 1 | grep -q 'level=info' && integ_pass "recovery is info" ||
  integ_fail "recovery not at info"
every_tick() { scrape && [ "$(value 'bottleneckd_collector_backoff{collector="threads"}')" = 1 ]; }
integ_wait_for 5 "backoff 1 on /metrics" every_tick && integ_pass "threads read every tick again" ||
  integ_fail "backoff after recovery '$(value 'bottleneckd_collector_backoff{collector="threads"}')'"
[ "$(value 'bottleneckd_self_limit_exceeded{resource="cpu"}')" = 0 ] && integ_pass "cpu within the new budget: 0" ||
  integ_fail "exceeded{cpu} after reload '$(value 'bottleneckd_self_limit_exceeded{resource="cpu"}')'"
n=$(grep -c 'msg="over its own budget' "$LOG")
[ "$n" = 1 ] && integ_pass "still one warn line in all" || integ_fail "$n warn lines in all"
kill -TERM "$PID"
integ_finish
