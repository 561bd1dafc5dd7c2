#!/usr/bin/env bash
# Issue 17: the daemon's first start on a host calibrates the soaker (0.6 s
# idle, up to 16 s loaded). It must listen first and calibrate in the
# background, saying so on "/"; a SIGTERM during the calibration stops it
# at once (cancelled, nothing stored) with exit 0. Over this real host (the
# soaker measures nothing of fixture trees), with an empty state directory
# and a calibration stretched to 4 s / 10 s (the most allowed) of CPU time per CPU so the
# window is there to be seen; nothing here measures wall time.
#
# usage: background_calibration_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=background_calibration_test
BIN=${1:?usage: background_calibration_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: background_calibration_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
integ_require_tools curl

config() {  # config FILE CALIBRATION_TIME
  printf 'soaker:\n  mode: always\n  calibration_time: %s\ncollectors:\n  irqtime: {mode: off}\n' "$2" >"$1"
}

# 1. Listens while calibrating, says so on "/", starts the soaker after.
config "$INTEG_TMP/c4.yaml" 4s
integ_start_bottleneckd PORT cal "$BIN" --config.file="$INTEG_TMP/c4.yaml"
PID=$INTEG_LAST_PID
LOG="$INTEG_TMP/bottleneckd-cal.log"
CAL="$INTEG_TMP/state-cal/soaker-calibration"
page=$(curl -fsS --max-time 5 "http://127.0.0.1:$PORT/" || true)
if grep -q 'soaker calibrated' "$LOG"; then
  integ_fail "the calibration ended before the first page was fetched; cannot tell (log: $(grep -c . "$LOG") lines)"
elif grep -q 'Soaker: calibrating since' <<<"$page"; then
  integ_pass "listening while the soaker calibrates; / says so"
else
  integ_fail "/ does not say the soaker is calibrating: $(grep -i soaker <<<"$page" | head -3)"
fi
listen_line=$(grep -n 'msg=listening' "$LOG" | head -n 1 | cut -d: -f1)
integ_wait_for 60 "the soaker calibrated and started" grep -q 'msg="soaker started"' "$LOG" ||
  integ_fail "no 'soaker started' after the calibration: $(tail -n 3 "$LOG")"
cal_line=$(grep -n 'soaker calibrated' "$LOG" | head -n 1 | cut -d: -f1)
if [ -n "$cal_line" ] && [ -n "$listen_line" ] && [ "$listen_line" -lt "$cal_line" ]; then
  integ_pass "the HTTP server listened (log line $listen_line) before the calibration ended (line $cal_line)"
else
  integ_fail "listening line '$listen_line', calibrated line '$cal_line'"
fi
[ -s "$CAL" ] && integ_pass "the calibration is stored" || integ_fail "no calibration stored in $CAL"
page=$(curl -fsS --max-time 5 "http://127.0.0.1:$PORT/" || true)
integ_wait_for 10 "the soaker's row on /" bash -c "curl -fsS --max-time 5 http://127.0.0.1:$PORT/ | grep -q '<td>soaker</td><td>ok'" &&
  integ_pass "the soaker reads once calibrated" || integ_fail "no soaker row on / after the calibration"
kill -TERM "$PID"

# 2. SIGTERM during a long calibration: cancelled, exit 0, nothing stored.
config "$INTEG_TMP/c10.yaml" 10s
integ_start_bottleneckd PORT long "$BIN" --config.file="$INTEG_TMP/c10.yaml"
PID=$INTEG_LAST_PID
LOG="$INTEG_TMP/bottleneckd-long.log"
integ_wait_for 10 "the calibration to begin" grep -q 'calibrating the soaker in the background' "$LOG" ||
  integ_fail "no background calibration logged"
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
[ "$rc" = 0 ] && integ_pass "SIGTERM during the calibration: exit 0" ||
  integ_fail "SIGTERM during the calibration: exit $rc: $(tail -n 3 "$LOG")"
grep -q 'calibration cancelled' "$LOG" && integ_pass "the calibration was cancelled" ||
  integ_fail "no cancellation logged: $(tail -n 3 "$LOG")"
[ ! -e "$INTEG_TMP/state-long/soaker-calibration" ] && integ_pass "nothing half-measured is stored" ||
  integ_fail "a cancelled calibration was stored"

integ_finish
