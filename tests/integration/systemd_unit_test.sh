#!/usr/bin/env bash
# The hardened unit, etc/systemd/bottleneckd.service, checked without a
# systemd to start it (CI runs in a container):
#   1. `systemd-analyze security --offline` scores it 2.5 ("OK") or better;
#      the score is printed, so a change that loosens the unit shows in the log
#      before it fails here.
#   2. Every system call the daemon makes while doing all a service does
#      (scrapes, gzip, the landing page and /report, the soaker with its
#      calibration, live capture, irqtime's eBPF program, a run through the
#      control socket, SIGHUP, SIGTERM), traced with strace, is one the unit's
#      SystemCallFilter= lines allow, taken in order and expanded with
#      `systemd-analyze syscall-filter`. A call outside would get EPERM
#      (SystemCallErrorNumber=) and a source would fail in production only.
#   3. The daemon as the unit runs it: an unprivileged user, exactly the
#      unit's ambient and bounding capabilities, no new privileges, its umask:
#      the capture opens, irqtime loads, scrapes answer, and the state it
#      writes is not world-readable.
# The installed package runs its unit's command the same way
# (package_test.sh).
#
# usage: systemd_unit_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=systemd_unit_test
BIN=${1:?usage: systemd_unit_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: systemd_unit_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 240 "$@"
integ_init
integ_require_tools systemd-analyze strace setpriv curl
UNIT="$SRC/etc/systemd/bottleneckd.service"

# --- 1. the exposure score ---------------------------------------------------
systemd-analyze security --offline=yes "$UNIT" >"$INTEG_TMP/security" 2>&1
score=$(integ_exposure <"$INTEG_TMP/security")
if [ -z "$score" ]; then
  integ_fail "systemd-analyze security printed no overall exposure: $(tail -n 3 "$INTEG_TMP/security")"
elif integ_exposure_ok "$score"; then
  integ_pass "systemd-analyze security: exposure $score (at most 2.5, OK)"
else
  grep '✗' "$INTEG_TMP/security" | sed 's/^/  /'
  integ_fail "systemd-analyze security: exposure $score, over 2.5 (the exposed settings are above)"
fi

# --- 2. system calls ---------------------------------------------------------
# expand NAME: the system calls of a group (recursively) or the name itself.
expand() {
  case "$1" in
    @*) systemd-analyze syscall-filter "$1" | sed 's/#.*//' | tr -d ' ' | grep -v '^$' | grep -vxF -- "$1" |
          while read -r s; do expand "$s"; done ;;
    *) printf '%s\n' "$1" ;;
  esac
}
# The allowed set, SystemCallFilter= by SystemCallFilter= (the first is an
# allow list; `~` lines take away, the others add).
: >"$INTEG_TMP/allowed"
while read -r line; do
  deny=0
  case "$line" in "~"*) deny=1; line=${line#\~} ;; esac
  for item in $line; do expand "$item"; done | sort -u >"$INTEG_TMP/these"
  if [ "$deny" -eq 1 ]; then
    grep -vxFf "$INTEG_TMP/these" "$INTEG_TMP/allowed" >"$INTEG_TMP/next" || true
  else
    sort -u "$INTEG_TMP/allowed" "$INTEG_TMP/these" >"$INTEG_TMP/next"
  fi
  mv "$INTEG_TMP/next" "$INTEG_TMP/allowed"
done < <(integ_unit_values "$UNIT" SystemCallFilter)
n_allowed=$(wc -l <"$INTEG_TMP/allowed")
# The expansion is not vacuous: the filter keeps the everyday calls and
# refuses the ones a profiler has no business making.
if grep -qx read "$INTEG_TMP/allowed" && grep -qx bpf "$INTEG_TMP/allowed" &&
   ! grep -qxE 'setuid|mount|init_module|reboot|ptrace|kexec_load' "$INTEG_TMP/allowed"; then
  integ_pass "SystemCallFilter allows $n_allowed calls: read and bpf in, setuid, mount, init_module, reboot, ptrace, kexec_load out"
else
  integ_fail "SystemCallFilter's expansion looks wrong ($n_allowed calls): $(paste -sd' ' "$INTEG_TMP/allowed" | head -c 400)"
fi

mkdir -p "$INTEG_TMP/trace-state"
cat >"$INTEG_TMP/trace.yaml" <<'EOF'
interval: 500ms
EOF
integ_spawn TRACE_PID "$INTEG_TMP/strace.log" strace -f -qq -o "$INTEG_TMP/trace" -e trace=all \
  "$BIN" --config.file="$INTEG_TMP/trace.yaml" --web.listen-address=127.0.0.1:0 \
  --path.state="$INTEG_TMP/trace-state" --control.socket="$INTEG_TMP/trace-state/control.sock" \
  --capture.interface=lo --collector.irqtime
port=""
for ((i = 0; i < 300; i++)); do
  port=$(sed -n 's/.*msg=listening address=127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$INTEG_TMP/strace.log" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || integ_die "the traced daemon did not listen: $(tail -n 5 "$INTEG_TMP/strace.log")"
url="http://127.0.0.1:$port"
integ_wait_for 60 "the soaker's calibration" grep -q 'soaker calibrated' "$INTEG_TMP/strace.log" ||
  integ_fail "the traced daemon never calibrated the soaker"
for path in /metrics / /report; do curl -fsS "$url$path" -o /dev/null || integ_fail "traced daemon: GET $path failed"; done
curl -fsS -H 'Accept-Encoding: gzip' "$url/metrics" -o /dev/null || integ_fail "traced daemon: gzip scrape failed"
# A run through the control socket: the soaker runs during it.
"$BIN" run --control.socket="$INTEG_TMP/trace-state/control.sock" --name traced -- sleep 3 \
  >"$INTEG_TMP/run.out" 2>&1 || integ_fail "traced daemon: bottleneckd run failed: $(tail -n 3 "$INTEG_TMP/run.out")"
curl -fsS "$url/metrics" -o /dev/null
daemon_pid=$(sed -n 's/^\([0-9]*\) .*/\1/p' "$INTEG_TMP/trace" | head -n 1)
kill -HUP "$daemon_pid"
integ_wait_for 10 "the reload" grep -q 'configuration applied' "$INTEG_TMP/strace.log" ||
  integ_fail "the traced daemon did not reload on SIGHUP"
kill -TERM "$daemon_pid"
integ_wait_for 20 "the traced daemon to stop" grep -q 'msg=stopped' "$INTEG_TMP/strace.log" ||
  integ_fail "the traced daemon did not stop on SIGTERM"
wait "$TRACE_PID" 2>/dev/null
grep -q 'irqtime loaded' "$INTEG_TMP/strace.log" || integ_fail "irqtime did not load in the traced daemon"
grep -q 'msg=capturing interface=lo' "$INTEG_TMP/strace.log" || integ_fail "the traced daemon did not capture on lo"

# "PID name(args) = ..." and "PID <... name resumed>" lines: the calls made.
sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p; s/^[0-9]+ +<\.\.\. ([a-z_0-9]+) resumed>.*/\1/p' "$INTEG_TMP/trace" |
  sort -u >"$INTEG_TMP/used"
# execve is the one call systemd makes before the filter applies (ExecStart).
outside=$(grep -vxFf "$INTEG_TMP/allowed" "$INTEG_TMP/used" | grep -vx execve | paste -sd' ')
if [ ! -s "$INTEG_TMP/used" ]; then
  integ_fail "strace recorded no system calls"
elif [ -z "$outside" ]; then
  integ_pass "all $(wc -l <"$INTEG_TMP/used") system calls the daemon made are allowed by SystemCallFilter"
else
  integ_fail "system calls the unit's SystemCallFilter refuses (EPERM under systemd): $outside"
fi

# --- 3. as the unit runs it ----------------------------------------------------
umask_value=$(integ_unit_values "$UNIT" UMask | tail -n 1)
mapfile -t priv < <(integ_unit_setpriv "$UNIT" nobody)
state="$INTEG_TMP/unit-state"
mkdir -m 0750 "$state" && chown nobody: "$state"
cat >"$INTEG_TMP/unit.yaml" <<'EOF'
interval: 500ms
EOF
chmod 0644 "$INTEG_TMP/unit.yaml"
chmod 0755 "$INTEG_TMP"
integ_log "as the unit runs it: umask $umask_value, setpriv ${priv[*]}"
{
  printf '#!/bin/sh\numask %s\nexec setpriv' "$umask_value"
  printf ' %q' "${priv[@]}" -- "$BIN"
  printf ' "$@"\n'
} >"$INTEG_TMP/as-unit.sh"
chmod 0755 "$INTEG_TMP/as-unit.sh"
integ_start_bottleneckd uport unit "$INTEG_TMP/as-unit.sh" --config.file="$INTEG_TMP/unit.yaml" --path.state="$state" --control.socket="$state/control.sock" \
  --capture.interface=lo --collector.irqtime
ulog="$INTEG_TMP/bottleneckd-unit.log"
integ_wait_for 60 "the calibration as nobody" grep -q 'soaker calibrated' "$ulog" ||
  integ_fail "as the unit's user: the soaker did not calibrate"
scrape=$(curl -fsS "http://127.0.0.1:$uport/metrics") || integ_fail "as the unit's user: no scrape"
if grep -q 'irqtime loaded' "$ulog" && grep -q 'msg=capturing interface=lo' "$ulog" &&
   grep -q '^bottleneckd_capture_' <<<"$scrape"; then
  integ_pass "as nobody with only $(integ_unit_values "$UNIT" AmbientCapabilities): the capture opened, irqtime loaded, the scrape answered"
else
  integ_fail "as the unit's user: capture or irqtime missing: $(grep -E 'capture|irqtime' "$ulog" | head -n 3)"
fi
loose=$(find "$state" -mindepth 1 -perm /o+rwx -printf '%p %m\n' | grep -v 'control.sock' || true)
if [ -n "$(find "$state" -mindepth 1 -type f)" ] && [ -z "$loose" ]; then
  integ_pass "state written as nobody under umask $umask_value is not world-accessible: $(find "$state" -mindepth 1 -type f -printf '%f %m, ' )"
else
  integ_fail "state files world-accessible (or none written): $loose"
fi

integ_finish
