#!/usr/bin/env bash
# Runs on this machine, end to end with the real binary (issue 17): while 20
# clients hold connections to the daemon's control socket open and send
# nothing (a helper keeps 20 open, replacing each one the daemon drops), a
# `bottleneckd run -- true` through that socket succeeds, and the silent
# clients are answered the daemon's timeout refusal. The helper closes its
# connections when told to, or after 60 s on its own; the script is bounded.
#
# usage: control_flood_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=control_flood_test
BIN=${1:?usage: control_flood_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: control_flood_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
integ_require_tools python3

printf 'interval: 1s\n' >"$INTEG_TMP/bottleneckd.yaml"
integ_start_bottleneckd PORT flood "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml"
SOCK="$INTEG_TMP/state-flood/control.sock"
for ((i = 0; i < 50; i++)); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || integ_die "no control socket at $SOCK"

# The silent clients: writes "ready" to READY once 20 are connected, keeps 20
# open until STOP exists (and at least one was answered) or 60 s pass, then
# closes them all and prints what the daemon answered them.
READY="$INTEG_TMP/silent.ready"
STOP="$INTEG_TMP/silent.stop"
SILENT_PY='
import os, select, socket, sys, time
path, ready, stop = sys.argv[1:4]
def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)  # blocking: waits for room in the listen backlog
    s.setblocking(False)
    return s
open_ = {}
for _ in range(20):
    s = connect()
    open_[s] = b""
with open(ready, "w") as f:
    f.write("ready\n")
answers = []
end = time.monotonic() + 60
while time.monotonic() < end and not (os.path.exists(stop) and answers):
    readable, _, _ = select.select(list(open_), [], [], 0.1)
    for s in readable:
        try:
            b = s.recv(4096)
        except OSError:
            b = b""
        if b:
            open_[s] += b
            continue
        answers.append(open_.pop(s).decode(errors="replace"))  # the daemon closed it
        s.close()
        open_[connect()] = b""
for s in open_:
    s.close()
print("answered %d" % len(answers))
for a in sorted(set(answers)):
    print("answer %r" % a)
'
integ_spawn SILENT_PID "$INTEG_TMP/silent.out" "$INTEG_PYTHON" -c "$SILENT_PY" "$SOCK" "$READY" "$STOP"
for ((i = 0; i < 300; i++)); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || integ_die "the silent clients did not connect within 30 s: $(cat "$INTEG_TMP/silent.out")"

timeout 60 "$BIN" run --control.socket "$SOCK" --name beside-silent -- true >"$INTEG_TMP/run.out" 2>"$INTEG_TMP/run.err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "bottleneckd run 'beside-silent' (exit 0)" "$INTEG_TMP/run.err" &&
   ! grep -q "sampling in this process" "$INTEG_TMP/run.err"; then
  integ_pass "bottleneckd run through the daemon succeeded while 20 silent clients were connected"
else
  integ_fail "bottleneckd run beside 20 silent clients: exit $rc: $(tail -n 5 "$INTEG_TMP/run.err")"
fi
if grep -q 'msg="run finished" name=beside-silent' "$INTEG_TMP/bottleneckd-flood.log"; then
  integ_pass "the daemon ran and finished the run"
else
  integ_fail "no 'run finished' for beside-silent in the daemon's log"
fi

touch "$STOP"
for ((i = 0; i < 300; i++)); do kill -0 "$SILENT_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$SILENT_PID" 2>/dev/null; then
  integ_fail "the silent clients did not finish within 30 s of being told to"
else
  wait "$SILENT_PID"
  out="$(cat "$INTEG_TMP/silent.out")"
  if grep -qx "answer 'error\\\\trequest timed out: no complete line within 2 s\\\\n'" <<<"$out" &&
     ! grep -v -x -e 'answered [0-9]*' -e "answer 'error\\\\trequest timed out: no complete line within 2 s\\\\n'" <<<"$out" | grep -q .; then
    integ_pass "the silent clients got the timeout refusal and nothing else: $(head -n 1 <<<"$out"), then closed"
  else
    integ_fail "what the silent clients got: $out"
  fi
fi

integ_finish
