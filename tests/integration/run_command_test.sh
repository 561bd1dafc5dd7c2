#!/usr/bin/env bash
# Runs on this machine, end to end with the real binary:
# - `bottleneckd run -- CMD` with no daemon samples in its own process, passes
#   CMD's exit code through (3; 127 not found; 126 not executable; 143 killed
#   by SIGTERM) and stores the run;
# - with a daemon: the control socket is 0660, a real bounded UDP echo sweep
#   on loopback (lab/udp_echo.py) is wrapped as a run, and `--report --run`
#   reads it back from the run store with its verdict and its load steps as
#   segments, the delivered rate checked against the echo tool's own count,
#   and the daemon follows the wrapped command's threads (offcpu's stacks
#   of the run name them) with no threads target configured;
# - `bottleneckd run`'s summary reads as `--report --run NAME` for that run
#   (in-process and through the daemon);
# - a bad request gets a clear error and the daemon keeps serving;
# - SIGKILL of the daemon mid-run, then a restart: the finished run is intact
#   and the cut one is recovered as "interrupted" from its timeline;
# - a user outside the socket's group is refused (when the test runs as root).
#
# usage: run_command_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=run_command_test
BIN=${1:?usage: run_command_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: run_command_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 240 "$@"
# Its echo sweep's loopback counts are checked against the echo tool's own.
integ_private_net "$@"
integ_init
integ_require_tools python3

# A control request straight on the socket: prints the answer.
control() {  # SOCKET LINE
  python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode())
PY
}

# json_get FILE EXPR: evaluates a Python expression over the JSON as `r`.
json_get() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# same_as_report STDERR NAME STATE_DIR: the summary `bottleneckd run` printed
# (after its "bottleneckd run 'NAME' (exit N):" line, less the in-process
# "stored in"/"not stored" line) is `--report --run NAME` less its first line
# ("run store PATH") and the blank line under it.
same_as_report() {
  local got want
  got="$(sed -n "/^bottleneckd run '$2' (exit [0-9]*):\$/,\$p" "$1" | tail -n +2 | grep -v -E '^(stored in |not stored )')"
  want="$("$BIN" --report --path.state "$3" --run "$2" 2>&1 | tail -n +3)"
  if [ -n "$got" ] && [ "$got" = "$want" ]; then
    integ_pass "run '$2': the summary of \`bottleneckd run\` reads as --report --run"
  else
    integ_fail "run '$2': summary and report differ: $(diff <(printf '%s\n' "$got") <(printf '%s\n' "$want") | head -n 20)"
  fi
}

# again_works STDERR NAME: the "again:" command `bottleneckd run` printed last
# (with the state directory the run is stored in) reports that run.
again_works() {
  local cmd out
  cmd="$(sed -n "s/^stored in .*; again: bottleneckd //p" "$1" | tail -n 1)"
  out="$(eval "\"\$BIN\" $cmd" 2>&1)"
  if [ -n "$cmd" ] && grep -qF "$2" <<<"$out" && ! grep -q "no run named" <<<"$out"; then
    integ_pass "run '$2': the printed 'again: bottleneckd $cmd' reports it"
  else
    integ_fail "run '$2': no working 'again:' line ($cmd): $(head -n 3 <<<"$out")"
  fi
}

# --- no daemon: in-process ----------------------------------------------------
S1="$INTEG_TMP/inproc"
mkdir -p "$S1"
"$BIN" run --path.state "$S1" --control.socket "$S1/none.sock" --name inproc -- sh -c 'sleep 2.5; exit 3' \
  >"$S1/out" 2>"$S1/err"
rc=$?
if [ "$rc" -eq 3 ] && grep -q "no bottleneckd is listening" "$S1/err" && grep -q "bottleneckd run 'inproc' (exit 3)" "$S1/err"; then
  integ_pass "no daemon: sampled in-process, exit code 3 passed through, verdict printed"
else
  integ_fail "in-process run: exit $rc, stderr: $(tail -n 5 "$S1/err")"
fi
"$BIN" --report --path.state "$S1" --format json >"$S1/report.json" 2>"$S1/report.err"
if [ "$(json_get "$S1/report.json" '[(x["name"], x["state"], x["exit_code"]) for x in r["runs"]]')" = "[('inproc', 'finished', 3.0)]" ] ||
   [ "$(json_get "$S1/report.json" '[(x["name"], x["state"], x["exit_code"]) for x in r["runs"]]')" = "[('inproc', 'finished', 3)]" ]; then
  integ_pass "the in-process run is in the run store with its exit code"
else
  integ_fail "run store after the in-process run: $(cat "$S1/report.json" "$S1/report.err")"
fi
same_as_report "$S1/err" inproc "$S1"
again_works "$S1/err" inproc
printf '#!/bin/sh\n' >"$S1/not-executable"
printf '#!/bin/sh\nkill -TERM $$\n' >"$S1/killed-by-sigterm"
chmod +x "$S1/killed-by-sigterm"
for case in "127 /nonexistent/command" "126 $S1/not-executable" "143 $S1/killed-by-sigterm"; do
  want="${case%% *}"
  cmd="${case#* }"
  "$BIN" run --path.state "$S1" --control.socket "$S1/none.sock" -- "$cmd" >/dev/null 2>"$S1/err"
  rc=$?
  if [ "$rc" -eq "$want" ]; then integ_pass "exit $want for: $cmd"; else integ_fail "want exit $want for '$cmd', got $rc: $(tail -n 3 "$S1/err")"; fi
done
# A command that cannot start (exec failed, whatever its exit code) stores no
# run and prints only its error; a command that ran and exited 127 itself is
# a run like any other (decided by the exec failure, not the code).
# no_run_stored STATE NAME WHAT: --report --run NAME finds nothing.
no_run_stored() {
  if "$BIN" report --path.state "$1" --run "$2" >/dev/null 2>&1; then
    integ_fail "$3: run '$2' was stored: $("$BIN" report --path.state "$1" --run "$2" 2>&1 | head -n 3)"
  else
    integ_pass "$3: no run '$2' in the store"
  fi
}
"$BIN" run --path.state "$S1" --control.socket "$S1/none.sock" --name nostart -- /nonexistent/command >"$S1/out" 2>"$S1/err"
if [ "$(grep -vc 'sampling in this process' "$S1/err")" = 1 ] && grep -q '/nonexistent/command: No such file' "$S1/err" &&
  [ ! -s "$S1/out" ]; then
  integ_pass "in-process: a command that cannot start prints only its error"
else
  integ_fail "in-process: a command that cannot start printed more: $(head -c 400 "$S1/err")"
fi
no_run_stored "$S1" nostart "in-process"
"$BIN" run --path.state "$S1" --control.socket "$S1/none.sock" --name ran127 -- sh -c 'exit 127' >/dev/null 2>"$S1/err"
if "$BIN" report --path.state "$S1" --run ran127 >/dev/null 2>&1; then
  integ_pass "in-process: a command that ran and exited 127 is stored"
else
  integ_fail "in-process: the run of a command that exited 127 itself was not stored"
fi

# --- the daemon ----------------------------------------------------------------
# lo on the packet path, and captured: its counters see each echo's request
# and reply, the capture counts each echo once (analysis/signals.cc).
printf 'interval: 1s\nruns:\n  window: 10s\nverdict:\n  packet_path_interfaces: [lo]\ncollectors:\n  pcap:\n    interfaces: [lo]\n' \
  >"$INTEG_TMP/bottleneckd.yaml"
integ_start_bottleneckd PORT live "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml"
DPID="$INTEG_LAST_PID"
STATE="$INTEG_TMP/state-live"
SOCK="$STATE/control.sock"
for ((i = 0; i < 50; i++)); do [ -S "$SOCK" ] && break; sleep 0.1; done
mode="$(stat -c %a "$SOCK" 2>/dev/null)"
if [ "$mode" = "660" ]; then integ_pass "control socket $SOCK is mode 0660"; else integ_fail "control socket mode '$mode'"; fi

"$BIN" run --control.socket "$SOCK" --name echo-sweep -- \
  python3 "$SRC/lab/udp_echo.py" --rates 4000,16000 --step 10 --max-seconds 30 >"$INTEG_TMP/echo.out" 2>"$INTEG_TMP/echo.err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "bottleneckd run 'echo-sweep' (exit 0)" "$INTEG_TMP/echo.err"; then
  integ_pass "the UDP echo sweep ran as a run of the daemon; its verdict was printed"
else
  integ_fail "echo sweep run: exit $rc: $(tail -n 8 "$INTEG_TMP/echo.err")"
fi
same_as_report "$INTEG_TMP/echo.err" echo-sweep "$STATE"
again_works "$INTEG_TMP/echo.err" echo-sweep
# `report --control.socket` finds the store of the daemon listening there
# (its state directory is not the default): the same text as --path.state.
by_state="$("$BIN" report --path.state "$STATE" --run echo-sweep 2>&1)"
by_socket="$("$BIN" report --control.socket "$SOCK" --run echo-sweep 2>&1)"
if [ -n "$by_state" ] && [ "$by_socket" = "$by_state" ]; then
  integ_pass "report --control.socket reads the daemon's own store ($(head -n 1 <<<"$by_socket"))"
else
  integ_fail "report --control.socket: $(head -n 3 <<<"$by_socket") (want: $(head -n 1 <<<"$by_state"))"
fi
if out="$("$BIN" report --control.socket "$INTEG_TMP/nobody-here.sock" --run echo-sweep 2>&1)"; then
  integ_fail "report --control.socket with no daemon there succeeded: $out"
elif grep -q "no bottleneckd is listening on $INTEG_TMP/nobody-here.sock" <<<"$out" && grep -q -- "--path.state=DIR" <<<"$out"; then
  integ_pass "report --control.socket with no daemon there: $out"
else
  integ_fail "report --control.socket with no daemon there: $out"
fi
"$BIN" --report --path.state "$STATE" --run echo-sweep --format json >"$INTEG_TMP/sweep.json" 2>"$INTEG_TMP/sweep.err" ||
  integ_fail "--report --run echo-sweep: $(cat "$INTEG_TMP/sweep.err")"
if [ -s "$INTEG_TMP/sweep.json" ]; then
  # The parent run: finished, exit 0, a verdict, about 20 windows of load.
  check="$(json_get "$INTEG_TMP/sweep.json" '(r["parent"] or r["runs"][0])["state"] == "finished" and (r["parent"] or r["runs"][0])["exit_code"] == 0 and (r["parent"] or r["runs"][0])["verdict"]["label"] in ("cpu","interrupt","bus","none","undetermined") and (r["parent"] or r["runs"][0])["windows"] >= 8')"
  if [ "$check" = "True" ]; then integ_pass "run store: echo-sweep finished, exit 0, verdict $(json_get "$INTEG_TMP/sweep.json" '(r["parent"] or r["runs"][0])["verdict"]["label"]')"; else integ_fail "echo-sweep run record: $(head -c 600 "$INTEG_TMP/sweep.json")"; fi
  # The run followed its command (control `follow`): its threads were
  # targets with no collectors.threads.targets configured, so offcpu loaded
  # and kept where the echo tool's threads waited.
  if grep -q 'msg="run follows a process" name=echo-sweep' "$INTEG_TMP/bottleneckd-live.log" &&
    [ "$(json_get "$INTEG_TMP/sweep.json" 'r["offcpu"]["microseconds"] > 1000000 and any(w["wait"].startswith("python3: ") for w in r["offcpu"]["top_waits"])')" = "True" ]; then
    integ_pass "the daemon followed the wrapped command: $(json_get "$INTEG_TMP/sweep.json" 'r["offcpu"]["top_waits"][0]["wait"]')"
  else
    integ_fail "the wrapped command was not followed: $(grep -c 'run follows' "$INTEG_TMP/bottleneckd-live.log") log lines, offcpu $(json_get "$INTEG_TMP/sweep.json" 'r["offcpu"]')"
  fi
  # Its load steps as segments: the echo tool's own count of requests per
  # second against the segment's delivered rate (lo counted once per echo by
  # its capture; by its counters it was requests plus replies).
  python3 - "$INTEG_TMP/sweep.json" "$INTEG_TMP/echo.out" <<'PY' && integ_pass "segments of the sweep match the echo tool's own counts" || integ_fail "segments vs the echo tool: see above"
import json, sys
r = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and l.split()[0].isdigit()]
# Requests applied per second in each step: each echo once.
steps = [float(a) for _, a, e, _ in rows]
segs = r["runs"] if r["parent"] else []
print("echo tool requests/s per step:", [round(s) for s in steps])
print("segments received packets/s:", [round(s["received_packets_per_second"]) for s in segs])
if not segs:
    sys.exit("no segments")
# Every segment lies within 25 % of one step (other loopback traffic, window edges).
for s in segs:
    d = s["received_packets_per_second"]
    if not any(abs(d - want) <= 0.25 * want for want in steps):
        sys.exit("segment %s at %.0f pps matches no step" % (s["name"], d))
# The busiest step was found.
if not any(abs(s["received_packets_per_second"] - steps[-1]) <= 0.25 * steps[-1] for s in segs):
    sys.exit("no segment for the last step")
PY
fi

# The soaker (mode runs) ran exactly while the run was active: it started
# after the run did, stopped after it ended, and the run has soaker idle.
log="$INTEG_TMP/bottleneckd-live.log"
want_order='msg="run started" msg="soaker started" msg="run finished" msg="soaker stopped" '
for ((i = 0; i < 30; i++)); do  # the soaker stops on the tick after the run ends
  order="$(grep -o -E 'msg="(run started|run finished|soaker started|soaker stopped)"' "$log" | tr '\n' ' ')"
  [ "$order" = "$want_order" ] && break
  sleep 0.1
done
if [ "$order" = "$want_order" ] &&
   [ "$(json_get "$INTEG_TMP/sweep.json" '(r["parent"] or r["runs"][0])["soaker_idle_ratio"] is not None')" = "True" ]; then
  integ_pass "soaker mode runs: started after the run began, stopped after it ended, measured its idle"
else
  integ_fail "soaker and run order in the log: $order"
fi
"$BIN" run --control.socket "$SOCK" --name nostart -- /nonexistent/command >"$INTEG_TMP/nostart.out" 2>"$INTEG_TMP/nostart.err"
rc=$?
if [ "$rc" = 127 ] && [ "$(wc -l <"$INTEG_TMP/nostart.err")" = 1 ] && [ ! -s "$INTEG_TMP/nostart.out" ]; then
  integ_pass "daemon: a command that cannot start exits 127 with one line: $(cat "$INTEG_TMP/nostart.err")"
else
  integ_fail "daemon: a command that cannot start: exit $rc: $(head -c 400 "$INTEG_TMP/nostart.err")"
fi
no_run_stored "$STATE" nostart "daemon (discarded through the control socket)"

# --- bad requests -----------------------------------------------------------------
ans="$(control "$SOCK" "frobnicate")"
if [[ "$ans" == error* ]] && [[ "$ans" == *frobnicate* ]]; then integ_pass "bad request answered: ${ans//$'\t'/ }"; else integ_fail "bad request answer: $ans"; fi
ans="$(control "$SOCK" $'stop\tno-such-run')"
if [[ "$ans" == error*"no active run named 'no-such-run'"* ]]; then integ_pass "stopping an unknown run: clear error"; else integ_fail "unknown stop answer: $ans"; fi
ans="$(control "$SOCK" "status")"
if [[ "$ans" == ok* ]] && [[ "$ans" == *store* ]]; then integ_pass "status still served after bad requests"; else integ_fail "status: $ans"; fi

# --- a user outside the group ----------------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" run --control.socket "$SOCK" -- true >/dev/null 2>"$INTEG_TMP/nobody.err"
  rc=$?
    if [ "$rc" -eq 125 ] && grep -qi "permission" "$INTEG_TMP/nobody.err"; then
    integ_pass "nobody is refused by the control socket (exit 125): $(head -n 1 "$INTEG_TMP/nobody.err")"
  else
    integ_fail "nobody's run: exit $rc: $(cat "$INTEG_TMP/nobody.err")"
  fi
else
  integ_log "not root: the refusal of other users is covered by control_socket_test only"
fi

# --- SIGKILL mid-run, restart ------------------------------------------------------
ans="$(control "$SOCK" $'start\tcut-short')"
[[ "$ans" == ok* ]] || integ_fail "start cut-short: $ans"
sleep 4
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null || true
integ_start_bottleneckd PORT2 live2 "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml" --path.state="$STATE" \
  --control.socket="$SOCK"
"$BIN" --report --path.state "$STATE" --format json >"$INTEG_TMP/after.json" 2>"$INTEG_TMP/after.err" ||
  integ_fail "report after restart: $(cat "$INTEG_TMP/after.err")"
states="$(json_get "$INTEG_TMP/after.json" 'sorted((x["name"], x["state"]) for x in r["runs"] if x["name"] in ("echo-sweep","cut-short"))')"
if [ "$states" = "[('cut-short', 'interrupted'), ('echo-sweep', 'finished')]" ]; then
  integ_pass "after SIGKILL and restart: echo-sweep finished, cut-short interrupted"
else
  integ_fail "after restart: $states"
fi
if grep -q "recovered" "$INTEG_TMP/bottleneckd-live2.log"; then integ_pass "the restart logged the recovery"; else integ_fail "no recovery log line"; fi
windows="$(json_get "$INTEG_TMP/after.json" '[x for x in r["runs"] if x["name"] == "cut-short"][0]["windows"]')"
if [ "${windows:-0}" -ge 1 ]; then integ_pass "the interrupted run kept $windows settled windows from its timeline"; else integ_fail "interrupted run has $windows windows"; fi

integ_finish
