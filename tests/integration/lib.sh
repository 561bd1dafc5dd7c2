# Helpers for the integration scripts in tests/integration (sourced, not run):
# PASS/FAIL bookkeeping, background processes that are always cleaned up on
# exit, bottleneckd startup (port read from its "msg=listening" log line), a
# real Prometheus server on a free loopback port, and PromQL queries through
# its HTTP API (curl, python3 for the JSON, and coreutils/sed/awk: nothing
# beyond scripts/install-deps.sh and a base Debian system).
#
# A script sets TEST_NAME, sources this file, calls integ_init, then uses the
# helpers. Setup problems call integ_die (fatal); assertions call integ_pass /
# integ_fail and integ_finish turns any failure into a non-zero exit.

INTEG_PASSED=0
INTEG_FAILED=0
INTEG_PIDS=()      # background processes we started; killed on exit
INTEG_LOGS=()      # their logs, shown when the script fails
INTEG_TMP=""       # mktemp -d, removed on exit
# Debian's interpreter when present: a user-level shim (pyenv) in front of it
# can take over a second per start, and the helpers start it often.
if [ -x /usr/bin/python3 ]; then INTEG_PYTHON=/usr/bin/python3; else INTEG_PYTHON=python3; fi

integ_log() { printf '==> [%ss] %s\n' "$SECONDS" "$*"; }
integ_pass() { INTEG_PASSED=$((INTEG_PASSED + 1)); printf 'PASS: %s\n' "$*"; }
integ_fail() { INTEG_FAILED=$((INTEG_FAILED + 1)); printf 'FAIL: %s\n' "$*"; }
integ_die() { printf 'FAIL: %s\n' "$*"; printf '%s: FAILED (setup): %s\n' "${TEST_NAME}" "$*" >&2; exit 1; }

# Re-executes the calling script under `timeout` so the whole run is bounded;
# on expiry every process of the group gets SIGTERM and the EXIT trap cleans up.
integ_bound_time() {
  local seconds="$1"; shift
  if [ -z "${INTEG_TIME_BOUNDED:-}" ]; then
    export INTEG_TIME_BOUNDED="$seconds"
    exec timeout -k 5 "$seconds" bash "$0" "$@"
  fi
}

# integ_private_net "$@" (after integ_bound_time, before integ_init): runs the
# rest of the script in a network namespace of its own, with a loopback
# interface and nothing else, and /sys mounted for it (as `ip netns exec`
# does: the netdev collector reads /sys/class/net). Loopback counts it makes
# are then its own, not those of tests running beside it (ctest runs four at
# once in CI's GCC tree: run_command_test once counted 6927 packets/s on lo
# for its 4000/s step). Root only; elsewhere the script runs where it is.
# The marker is the namespace it left, so /sys is remounted only in a new one.
integ_private_net() {
  local here
  here=$(readlink /proc/self/ns/net)
  if [ -z "${INTEG_PRIVATE_NET:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
    export INTEG_PRIVATE_NET=$here
    exec unshare --net --mount bash "$0" "$@"
  fi
  if [ -n "${INTEG_PRIVATE_NET:-}" ] && [ "$INTEG_PRIVATE_NET" != "$here" ]; then
    mount -t sysfs sysfs /sys && ip link set lo up || {
      echo "$TEST_NAME: could not set up its network namespace (sysfs, lo)" >&2
      exit 1
    }
  fi
}

integ_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid i
  for pid in "${INTEG_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${INTEG_PIDS[@]}"; do
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "cleanup: pid $pid ignored SIGTERM for 5 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
  done
  if [ "$rc" -ne 0 ]; then
    local f
    for f in "${INTEG_LOGS[@]}"; do
      [ -s "$f" ] || continue
      printf -- '--- last lines of %s ---\n' "$(basename "$f")" >&2
      tail -n 25 "$f" >&2
    done
  fi
  # INTEG_KEEP=1 keeps the temporary directory (logs, scrapes) for a look.
  if [ -n "${INTEG_KEEP:-}" ] && [ -n "$INTEG_TMP" ]; then
    echo "kept $INTEG_TMP (INTEG_KEEP)" >&2
  elif [ -n "$INTEG_TMP" ]; then
    rm -rf "$INTEG_TMP"
  fi
  exit "$rc"
}

integ_init() {
  trap integ_cleanup EXIT
  trap 'integ_die "interrupted by a signal (time budget of ${INTEG_TIME_BOUNDED:-?} s exceeded?)"' INT TERM
  INTEG_TMP="$(mktemp -d "${TMPDIR:-/tmp}/${TEST_NAME}.XXXXXX")" || integ_die "mktemp -d failed"
}

# Prints the summary; exits 1 if any assertion failed.
integ_finish() {
  printf '%s: %d passed, %d failed\n' "${TEST_NAME}" "$INTEG_PASSED" "$INTEG_FAILED"
  if [ "$INTEG_FAILED" -ne 0 ]; then
    printf '%s: FAILED (%d assertion(s), see the FAIL lines above)\n' "${TEST_NAME}" "$INTEG_FAILED" >&2
    exit 1
  fi
  printf '%s: OK\n' "${TEST_NAME}"
}

integ_require_tools() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 ||
      integ_die "'$t' is not installed (scripts/install-deps.sh installs it)"
  done
}

# integ_spawn VAR LOGFILE CMD...: starts CMD in the background, output to
# LOGFILE; its pid goes to VAR (the caller's variable: no locals here may
# shadow it) and to the cleanup list.
integ_spawn() {
  local var="$1" logfile="$2"
  shift 2
  "$@" >"$logfile" 2>&1 </dev/null &
  INTEG_PIDS+=("$!")
  INTEG_LOGS+=("$logfile")
  printf -v "$var" '%s' "$!"
}

# integ_start_bottleneckd PORTVAR NAME BIN ARGS...: starts the daemon on
# 127.0.0.1:0 and reads the kernel-chosen port from its log (30 s bound: the
# run store's first fsync can wait that long while other tests write their
# recordings on a 2-core CI machine; 10 s was once too short).
# Its pid is left in INTEG_LAST_PID.
integ_start_bottleneckd() {
  local portvar="$1" name="$2" bin="$3"; shift 3
  local logfile="$INTEG_TMP/bottleneckd-$name.log" pid i port=""
  # Its own state directory and control socket: tests never touch
  # /var/lib/bottleneckd or /run/bottleneckd (later flags in ARGS win).
  mkdir -p "$INTEG_TMP/state-$name"
  integ_spawn pid "$logfile" "$bin" --web.listen-address=127.0.0.1:0 --path.state="$INTEG_TMP/state-$name" \
    --control.socket="$INTEG_TMP/state-$name/control.sock" "$@"
  for ((i = 0; i < 300; i++)); do
    port="$(sed -n 's/.*msg=listening address=127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$logfile" 2>/dev/null | head -n 1)"
    [ -n "$port" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      integ_die "bottleneckd ($name) exited with status $? during startup: $(tail -n 5 "$logfile")"
    fi
    sleep 0.1
  done
  [ -n "$port" ] || integ_die "bottleneckd ($name) logged no 'msg=listening address=127.0.0.1:PORT' within 30 s: $(tail -n 3 "$logfile")"
  integ_log "bottleneckd ($name) pid $pid listening on 127.0.0.1:$port"
  printf -v "$portvar" '%s' "$port"
  INTEG_LAST_PID="$pid"
}

# A loopback TCP port that is free right now (never 9090, the packaged server's).
integ_free_port() {
  "$INTEG_PYTHON" -c '
import socket
while True:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    if port != 9090:
        print(port)
        break
'
}

# integ_start_prometheus CONFIG [FLAG...]: starts the real server (FLAGs added to its command line) with its TSDB in the
# temp dir on a free loopback port (retrying if another process grabbed it) and
# waits (30 s bound) for /-/ready. Sets PROM_URL and PROM_LOG.
integ_start_prometheus() {
  local config="$1" attempt port pid i store
  shift
  # Each server of a script its own store and log (two servers sharing one
  # TSDB directory corrupt it).
  INTEG_PROM_COUNT=$(( ${INTEG_PROM_COUNT:-0} + 1 ))
  for attempt in 1 2 3; do
    port="$(integ_free_port)" || integ_die "cannot find a free loopback port"
    store="$INTEG_TMP/tsdb-$INTEG_PROM_COUNT-$attempt"
    PROM_LOG="$INTEG_TMP/prometheus-$INTEG_PROM_COUNT-$attempt.log"
    # Blocks made beforehand (promtool tsdb create-blocks-from) start in its store.
    if [ -n "${INTEG_PROM_BLOCKS:-}" ]; then
      mkdir -p "$store" && cp -r "$INTEG_PROM_BLOCKS"/. "$store/"
    fi
    integ_spawn pid "$PROM_LOG" prometheus --config.file="$config" \
      --storage.tsdb.path="$store" --web.listen-address="127.0.0.1:$port" "$@"
    PROM_URL="http://127.0.0.1:$port"
    for ((i = 0; i < 300; i++)); do
      if curl -sf -m 2 "$PROM_URL/-/ready" >/dev/null 2>&1; then
        integ_log "prometheus pid $pid ready on 127.0.0.1:$port"
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      integ_die "prometheus not ready within 30 s on 127.0.0.1:$port"
    fi
    grep -q 'address already in use' "$PROM_LOG" ||
      integ_die "prometheus exited during startup: $(tail -n 5 "$PROM_LOG")"
    integ_log "port $port was taken meanwhile; retrying"
  done
  integ_die "prometheus could not bind a loopback port in 3 attempts"
}

# The Python that turns an /api/v1/query answer into one line per series:
# "label=value,label=value<TAB>sample value" (labels sorted, __name__ dropped).
# A scalar answer is one line "<TAB>value". An API error exits non-zero.
INTEG_PY_RESULT='
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success":
    sys.exit("query failed: %s: %s" % (d.get("errorType"), d.get("error")))
r = d["data"]
if r["resultType"] in ("scalar", "string"):
    print("\t" + r["result"][1])
    sys.exit(0)
if r["resultType"] != "vector":
    sys.exit("unexpected result type " + r["resultType"])
for s in r["result"]:
    labels = ",".join("%s=%s" % (k, v) for k, v in sorted(s["metric"].items()) if k != "__name__")
    print(labels + "\t" + s["value"][1])
'

# integ_query EXPR: instant query at "now"; prints the lines described above.
integ_query() {
  local body
  body="$(curl -sS -m 10 -G "$PROM_URL/api/v1/query" --data-urlencode "query=$1")" ||
    { echo "query '$1': HTTP request failed" >&2; return 1; }
  printf '%s' "$body" | "$INTEG_PYTHON" -c "$INTEG_PY_RESULT"
}

# integ_num A OP B: numeric comparison (OP: == != < <= > >=) of two Prometheus
# sample values ("1", "0.25", "1e+06", "+Inf", "-Inf"); NaN compares false.
integ_num() {
  case "$1 $3" in *[Nn]a[Nn]*) return 1 ;; esac
  awk -v a="$1" -v op="$2" -v b="$3" '
    function num(x) { if (x ~ /^\+?Inf$/) return 1e308 * 10; if (x ~ /^-Inf$/) return -1e308 * 10; return x + 0 }
    BEGIN {
      a = num(a); b = num(b)
      if (op == "==") r = a == b; else if (op == "!=") r = a != b
      else if (op == "<") r = a < b; else if (op == "<=") r = a <= b
      else if (op == ">") r = a > b; else if (op == ">=") r = a >= b
      else { print "integ_num: bad operator " op > "/dev/stderr"; exit 2 }
      exit !r
    }'
}

# integ_label LINE NAME: the value of one label in an integ_query line (no
# subprocess: the checks call it once per series).
integ_label() {
  local labels=",${1%%$'\t'*},"
  case "$labels" in *",$2="*) ;; *) return 1 ;; esac
  labels="${labels#*,"$2"=}"
  printf '%s\n' "${labels%%,*}"
}

# integ_value LINE: the sample value of an integ_query line.
integ_value() { printf '%s\n' "${1#*$'\t'}"; }

# integ_wait_for SECONDS DESCRIPTION COMMAND...: retries COMMAND every 0.5 s
# until it succeeds; returns 1 (after printing why) when time runs out.
integ_wait_for() {
  local seconds="$1" what="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  while ! "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "timed out after ${seconds} s waiting for: $what" >&2
      return 1
    fi
    sleep 0.5
  done
}

# The systemd unit's settings, for tests that run the daemon the way the unit
# does without a systemd to start it (tests/integration/systemd_unit_test.sh,
# package_test.sh).
# integ_unit_values UNIT KEY: every value of KEY in UNIT, one line each.
integ_unit_values() { sed -n "s/^$2=//p" "$1"; }

# integ_unit_setpriv UNIT USER: setpriv's options for USER with exactly the
# unit's ambient and bounding capabilities and no new privileges, as
# User=/AmbientCapabilities=/CapabilityBoundingSet=/NoNewPrivileges= give them.
integ_unit_setpriv() {
  local unit="$1" user="$2" caps bound
  caps=$(integ_unit_values "$unit" AmbientCapabilities | tr ' ' '\n' | grep . |
    sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd, -)
  bound=$(integ_unit_values "$unit" CapabilityBoundingSet | tr ' ' '\n' | grep . |
    sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd, -)
  printf '%s\n' "--reuid=$(id -u "$user")" "--regid=$(id -g "$user")" --init-groups \
    "--inh-caps=-all${caps:+,$caps}" "--ambient-caps=-all${caps:+,$caps}" \
    "--bounding-set=-all${bound:+,$bound}" --no-new-privs
}

# integ_exposure: the overall exposure from `systemd-analyze security`'s
# output on stdin ("" when there is none); integ_exposure_ok SCORE: true when
# SCORE is at most 2.5 ("OK"), the limit docs/install.md promises.
integ_exposure() { sed -n 's/.*Overall exposure level for bottleneckd.service: \([0-9.]*\).*/\1/p'; }
integ_exposure_ok() { [ -n "$1" ] && awk -v s="$1" 'BEGIN { exit !(s <= 2.5) }'; }
