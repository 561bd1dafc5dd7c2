#!/usr/bin/env bash
# The HTML report as a browser shows it: `--report --format html` of (a) a
# replayed lab recording (the seeds' sweep, lab/simulate.py), (b) the run
# store after runs taken with `bottleneckd run`, (c) `pcap --format html`
# of a capture written here, and (d) a daemon's /report after a run taken
# through its control socket, each loaded in headless Chromium
# (--dump-dom, offline: the page fetches nothing). Fails on any console
# message or load error Chromium logs; the dumped DOM must hold every plot
# with as many series and points as the JSON report of the same input has
# runs, windows, seconds and frames, the same verdicts and the same MLFRR,
# and the drops per rung (the loss bars under the sweep per run, the
# timeline's per window, the first losing rung emphasised) as its
# rung_drops_per_second and timeline say, and the CPU time budget plot (a
# stacked bar per window, each part's total the JSON timeline's, each bar
# 100 %) (tests/integration/html_check.py). The daemon's landing page must link
# /report and list the last hour's window runs. A screenshot of each page is
# kept in the temporary directory (INTEG_KEEP=1 keeps it; docs/images/ has
# committed ones: docs/images/report-replay.png is (a)'s page shot with
# --window-size=1280,2000, down to the drops per rung).
#
# usage: html_report_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=html_report_test
BIN=${1:?usage: html_report_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: html_report_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 90 "$@"
integ_init
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$CHROMIUM" ] || integ_die "chromium is not installed (scripts/install-deps.sh installs it)"

# browse NAME FILE: dumps FILE's DOM to NAME.dom and a screenshot to NAME.png;
# fails on console messages and load errors in Chromium's log.
browse() {
  local name="$1" file="$2" profile="$INTEG_TMP/chromium-$1"
  local flags=(--headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --user-data-dir="$profile"
    --no-first-run --no-default-browser-check --disable-extensions --disable-background-networking
    --disable-component-update --disable-sync --metrics-recording-only --proxy-server=127.0.0.1:9)
  timeout -k 2 20 "$CHROMIUM" "${flags[@]}" --dump-dom "file://$file" >"$INTEG_TMP/$name.dom" 2>"$INTEG_TMP/$name.log" &
  INTEG_PIDS+=("$!")
  wait "$!" || integ_fail "$name: chromium --dump-dom exited $? (log: $(tail -3 "$INTEG_TMP/$name.log"))"
  timeout -k 2 20 "$CHROMIUM" "${flags[@]}" --window-size=1280,2400 --screenshot="$INTEG_TMP/$name.png" \
    "file://$file" >/dev/null 2>"$INTEG_TMP/$name.shot.log" &
  INTEG_PIDS+=("$!")
  wait "$!" || integ_fail "$name: chromium --screenshot exited $?"
  # Console messages are logged as CONSOLE(line); a failed load names net::ERR_.
  local errors
  errors="$(grep -h -E 'CONSOLE|Uncaught|net::ERR_|Refused to|Failed to load' "$INTEG_TMP/$name.log" \
    "$INTEG_TMP/$name.shot.log" || true)"
  if [ -z "$errors" ]; then
    integ_pass "$name: loaded with no console error"
  else
    integ_fail "$name: Chromium logged: $(printf '%s' "$errors" | head -5)"
  fi
  if [ -s "$INTEG_TMP/$name.png" ]; then
    integ_pass "$name: screenshot $(stat -c %s "$INTEG_TMP/$name.png") bytes"
  else
    integ_fail "$name: no screenshot"
  fi
}

# compare NAME KIND JSON: the dumped DOM against the JSON report.
compare() {
  local out
  if out="$("$INTEG_PYTHON" "$SRC/tests/integration/html_check.py" "$2" "$INTEG_TMP/$1.dom" "$3" 2>&1)"; then
    integ_pass "$1: $(printf '%s\n' "$out" | wc -l) checks against the JSON report"
  else
    integ_fail "$1: $(printf '%s\n' "$out" | grep -v '^ok:' | head -10)"
  fi
}

# report NAME KIND ARGS...: the HTML and JSON of the same report, then both checks.
report() {
  local name="$1" kind="$2"
  shift 2
  "$BIN" "$@" --format html >"$INTEG_TMP/$name.html" 2>"$INTEG_TMP/$name.err" ||
    integ_die "$name: bottleneckd $* --format html failed: $(cat "$INTEG_TMP/$name.err")"
  "$BIN" "$@" --format json >"$INTEG_TMP/$name.json" 2>"$INTEG_TMP/$name.err" ||
    integ_die "$name: bottleneckd $* --format json failed: $(cat "$INTEG_TMP/$name.err")"
  if grep -q -i -E '<script|<link|src=|@import' "$INTEG_TMP/$name.html"; then
    integ_fail "$name: the page refers to something outside it"
  else
    integ_pass "$name: self-contained ($(stat -c %s "$INTEG_TMP/$name.html") bytes)"
  fi
  browse "$name" "$INTEG_TMP/$name.html"
  compare "$name" "$kind" "$INTEG_TMP/$name.json"
}

# (a) The seeds' sweep, simulated with ground truth and replayed.
rec="$INTEG_TMP/seed-sweep"
"$INTEG_PYTHON" "$SRC/lab/simulate.py" seed-sweep "$rec" >/dev/null || integ_die "lab/simulate.py seed-sweep failed"
report replay report --config.file="$SRC/lab/replay.yaml" --report --replay "$rec"

# (b) The run store after two runs taken with `bottleneckd run` (sampling
# this host in its own process: no daemon needed), 5 s apart: the timeline
# stops between them (html_check.py counts the pieces). The control socket
# is one no daemon listens on, so a daemon running on this host at the
# default socket does not take the runs into its own store.
state="$INTEG_TMP/state"
for n in 1 2; do
  [ "$n" = 1 ] || sleep 5
  "$BIN" run --control.socket="$INTEG_TMP/no-daemon.sock" --path.state="$state" --name "html-$n" -- sleep 3 \
    >/dev/null 2>"$INTEG_TMP/run-$n.err" ||
    integ_die "bottleneckd run html-$n failed: $(tail -3 "$INTEG_TMP/run-$n.err")"
done
report store report --report --path.state="$state"
if grep -q '"sweep_of":"2 runs named like .html-#. (html-1, html-2)"' "$INTEG_TMP/store.json"; then
  integ_pass "store: the two runs named html-N make one sweep"
else
  integ_fail "store: want the sweep of html-1 and html-2, got $(grep -o '"sweep_of":"[^"]*"' "$INTEG_TMP/store.json")"
fi

# (c) A capture: 3 s of UDP echo at 50 requests/s, 1 in 25 unanswered,
# replies 200-400 us later, payloads of 32 and 480 bytes.
cap="$INTEG_TMP/echo.pcap"
"$INTEG_PYTHON" - "$cap" <<'PY'
import struct, sys
def frame(src, dst, sport, dport, payload):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, bytes(src), bytes(dst))
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp
frames = []
for i in range(150):
    t = 1700000000 + i / 50
    payload = struct.pack("!I", i) + bytes(28 if i % 3 else 476)
    frames.append((t, frame([10, 0, 0, 1], [10, 0, 0, 2], 40000, 7, payload)))
    if i % 25 != 24:
        frames.append((t + 0.0002 + (i % 5) * 0.00005, frame([10, 0, 0, 2], [10, 0, 0, 1], 7, 40000, payload)))
frames.sort()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for t, b in frames:
        f.write(struct.pack("<IIII", int(t), int(round((t - int(t)) * 1e6)), len(b), len(b)) + b)
PY
report pcap pcap pcap "$cap"

# (d) A daemon with 2 s window runs: a run through its control socket, then
# /report (the same page as --report --format html of its store) and /.
printf 'runs:\n  window: 2s\n' >"$INTEG_TMP/live.yaml"
integ_start_bottleneckd live_port live "$BIN" --config.file="$INTEG_TMP/live.yaml"
"$BIN" run --control.socket="$INTEG_TMP/state-live/control.sock" --name html-live -- sleep 3 >/dev/null \
  2>"$INTEG_TMP/run-live.err" || integ_die "bottleneckd run through the daemon failed: $(tail -3 "$INTEG_TMP/run-live.err")"
history_rows() {
  curl -s --max-time 5 "http://127.0.0.1:$live_port/" >"$INTEG_TMP/landing.html" &&
    grep -q '<tr data-label=' "$INTEG_TMP/landing.html"
}
if integ_wait_for 15 "window runs on /" history_rows; then
  integ_pass "/: $(grep -c '<tr data-label=' "$INTEG_TMP/landing.html") window verdicts of the last hour"
else
  integ_fail "/ lists no window run: $(grep -A2 'last hour' "$INTEG_TMP/landing.html" | head -3)"
fi
grep -q '<a href="/report">' "$INTEG_TMP/landing.html" && integ_pass "/ links /report" || integ_fail "/ has no /report link"
curl -s --max-time 10 -o "$INTEG_TMP/live.html" "http://127.0.0.1:$live_port/report" || integ_fail "GET /report failed"
"$BIN" --report --path.state="$INTEG_TMP/state-live" --format json >"$INTEG_TMP/live.json" 2>"$INTEG_TMP/live.err" ||
  integ_die "--report of the daemon's store failed: $(cat "$INTEG_TMP/live.err")"
grep -q 'data-run="html-live"' "$INTEG_TMP/live.html" && integ_pass "/report shows run html-live" ||
  integ_fail "/report does not show run html-live"
browse live "$INTEG_TMP/live.html"
compare live report "$INTEG_TMP/live.json"

integ_finish
