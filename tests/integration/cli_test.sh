#!/usr/bin/env bash
# The command line through the real binary (cmd/flags.cc, CLI11): every
# usage error exits 2 with one line naming the flag, whatever the command;
# each command's --help is its own generated help on stdout with exit 0; a
# config file that cannot be used exits 1. Nothing here starts a daemon:
# each command line fails (or prints help) before sampling.
#
# usage: cli_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=cli_test
BIN=${1:?usage: cli_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: cli_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 60 "$@"
integ_init

# usage_error WANT_IN_MESSAGE ARGS...: exit 2, one stderr line containing WANT.
usage_error() {
  local want="$1"; shift
  local rc=0
  timeout 10 "$BIN" "$@" >"$INTEG_TMP/out" 2>"$INTEG_TMP/err" </dev/null || rc=$?
  local lines
  lines=$(wc -l <"$INTEG_TMP/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$INTEG_TMP/err" && [ ! -s "$INTEG_TMP/out" ]; then
    integ_pass "bottleneckd $*: exit 2, $(cat "$INTEG_TMP/err")"
  else
    integ_fail "bottleneckd $*: exit $rc (want 2), $lines stderr lines (want 1 with '$want'): $(head -c 300 "$INTEG_TMP/err")"
  fi
}

# help_of WANT... -- ARGS...: exit 0, stdout holds every WANT, stderr empty.
help_of() {
  local wants=()
  while [ "$1" != "--" ]; do wants+=("$1"); shift; done
  shift
  local rc=0
  timeout 10 "$BIN" "$@" >"$INTEG_TMP/out" 2>"$INTEG_TMP/err" </dev/null || rc=$?
  local w missing=""
  for w in "${wants[@]}"; do grep -qF -- "$w" "$INTEG_TMP/out" || missing+=" '$w'"; done
  if [ "$rc" -eq 0 ] && [ -z "$missing" ] && [ ! -s "$INTEG_TMP/err" ]; then
    integ_pass "bottleneckd $*: exit 0, help with ${wants[*]}"
  else
    integ_fail "bottleneckd $*: exit $rc, missing$missing: $(head -c 300 "$INTEG_TMP/err")"
  fi
}

# Each command's own help (these were usage errors before CLI11).
help_of "bottleneckd run" "--name" "--control.socket" "--path.procfs" -- run --help
help_of "bottleneckd pcap" "FILE" "--format" -- pcap --help
help_of "bottleneckd record" "--out" "--duration" "--collector.NAME" -- record --help
help_of "bottleneckd calibrate" "--path.state" -- calibrate -h
help_of "--web.listen-address" "--report" "calibrate" "record" "pcap" "irqtime" -- --help
# One usage line per help, run's naming what follows `--`; the top level
# starts a new user off.
if [ "$("$BIN" run --help | grep -c 'Usage:')" = 1 ] && "$BIN" run --help | grep -q 'Usage: .*run .*-- CMD \[ARGS...\]'; then
  integ_pass "run --help: one usage line, with -- CMD [ARGS...]"
else
  integ_fail "run --help: usage lines: $("$BIN" run --help | grep 'Usage' | tr '\n' ';')"
fi
if "$BIN" --help | grep -q '^Start here:' && "$BIN" --help | grep -q 'bottleneckd report --run'; then
  integ_pass "--help starts a new user off (Start here: serve, run, report)"
else
  integ_fail "--help has no 'Start here' examples"
fi
# A command's help does not list another's flags.
if "$BIN" pcap --help | grep -qE -- '--once|--soaker|--capture.interface|--web.listen-address'; then
  integ_fail "pcap --help lists flags that are not pcap's"
else
  integ_pass "pcap --help lists pcap's flags only"
fi

# Flags outside their command.
usage_error "--once does not go with pcap" pcap x.pcap --once
usage_error "--soaker does not go with --report" --report --soaker
usage_error "--capture.interface does not go with pcap" pcap x.pcap --capture.interface=eth0
usage_error "--capture.interface does not go with --report" --report --capture.interface eth0
usage_error "--format does not go with the daemon" --format json
usage_error "--out does not go with the daemon" --out /tmp/x
usage_error "--once and record are different commands" --once record --out "$INTEG_TMP/rec"
usage_error "--web.listen-address does not go with run" run --web.listen-address=:1 -- true
usage_error "--name does not go with record" record --out "$INTEG_TMP/rec" --name x
# Values: a flag is not a value, a switch takes none, bad values are named.
usage_error "--path.procfs needs a value, got the flag '--once'" --path.procfs --once
usage_error "--web.listen-address needs a value" --web.listen-address
usage_error "--once takes no value" --once=yes
usage_error "--log.level must be debug, info, warn or error" --log.level=loud
usage_error "--web.listen-address" --web.listen-address=nonsense
usage_error "--capture.filter" --capture.filter="port port"
usage_error "--duration must be a duration" record --out "$INTEG_TMP/rec" --duration 25h
usage_error "--last must be a number" --report --last 0
usage_error "unknown collector 'frobnicator' in --collector.frobnicator" --collector.frobnicator
usage_error "unknown collector 'cpus' in --no-collector.cpus: did you mean --no-collector.cpu?" --no-collector.cpus
usage_error "--format must be text, json or html, got 'folded'" pcap --format folded x.pcap
# A capture file that cannot be read: its error alone, no report on stdout.
rc=0
"$BIN" pcap "$INTEG_TMP/no-such.pcap" >"$INTEG_TMP/out" 2>"$INTEG_TMP/err" || rc=$?
if [ "$rc" = 1 ] && [ ! -s "$INTEG_TMP/out" ] && [ "$(wc -l <"$INTEG_TMP/err")" = 1 ] &&
  grep -q "no-such.pcap" "$INTEG_TMP/err"; then
  integ_pass "pcap on a missing file: exit 1, one line, nothing on stdout: $(cat "$INTEG_TMP/err")"
else
  integ_fail "pcap on a missing file: exit $rc, stdout $(wc -c <"$INTEG_TMP/out") bytes: $(head -c 300 "$INTEG_TMP/err")"
fi
if "$BIN" pcap --help | grep -- '--format' | grep -q folded; then
  integ_fail "pcap --help offers --format folded, which pcap refuses"
else
  integ_pass "pcap --help: --format text, json or html"
fi
usage_error "unknown flag --nope" --nope
usage_error "unknown flag --nope (see bottleneckd run --help)" run --nope -- true
usage_error "unknown command 'frobnicate'" frobnicate
usage_error "run needs a command" run --name x
usage_error "record needs --out" record
usage_error "pcap needs capture files" pcap
usage_error "\`--\` belongs to run" --once -- true

# A wrong root is said per collector, with the path and the flag: an empty
# --path.procfs fails cpu, interrupts, softirqs and sockets, an empty
# --path.sysfs fails netdev (they said "ok", or nothing at all, before).
EMPTY="$INTEG_TMP/empty-root"
mkdir -p "$EMPTY"
for root in procfs sysfs; do
  timeout 20 "$BIN" --config.file=/dev/null --path."$root"="$EMPTY" --once >"$INTEG_TMP/$root.out" \
    2>"$INTEG_TMP/$root.err"
  if [ "$root" = procfs ]; then collectors="cpu interrupts softirqs sockets"; else collectors="netdev"; fi
  for c in $collectors; do
    if grep 'msg="collector failed"' "$INTEG_TMP/$root.err" | grep "collector=$c " |
         grep -q "$EMPTY/[a-z/_]* .*absent: every Linux kernel has it; is $EMPTY a $root (--path.$root)?" &&
       grep -q "^bottleneckd_collector_success{collector=\"$c\"} 0" "$INTEG_TMP/$root.out"; then
      integ_pass "--path.$root=EMPTY: collector $c fails, naming the path and --path.$root"
    else
      integ_fail "--path.$root=EMPTY: collector $c: $(grep "collector=$c " "$INTEG_TMP/$root.err" | head -n 1)" \
        "success: $(grep "^bottleneckd_collector_success{collector=\"$c\"}" "$INTEG_TMP/$root.out")"
    fi
  done
done

# A usable command line with a config file that is not: exit 1.
printf 'collectors:\n  frobnicator: {}\n' >"$INTEG_TMP/bad.yaml"
rc=0
timeout 10 "$BIN" --config.file="$INTEG_TMP/bad.yaml" --config.check >/dev/null 2>"$INTEG_TMP/err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q "unknown collector 'frobnicator'" "$INTEG_TMP/err"; then
  integ_pass "a bad config file: exit 1, $(cat "$INTEG_TMP/err")"
else
  integ_fail "a bad config file: exit $rc: $(cat "$INTEG_TMP/err")"
fi
# --collector.pcap with nothing to capture on: a config error naming the fix.
rc=0
timeout 10 "$BIN" --config.file=/dev/null --collector.pcap --config.check >/dev/null 2>"$INTEG_TMP/err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q -- "--capture.interface" "$INTEG_TMP/err"; then
  integ_pass "--collector.pcap without an interface: exit 1, $(cat "$INTEG_TMP/err")"
else
  integ_fail "--collector.pcap without an interface: exit $rc: $(cat "$INTEG_TMP/err")"
fi
# Every old spelling still parses: the flags of the scripts and the unit.
rc=0
timeout 10 "$BIN" --config.file=/dev/null --web.listen-address=127.0.0.1:0 --path.procfs /proc --path.sysfs=/sys \
  --path.state="$INTEG_TMP/st" --control.socket "$INTEG_TMP/c.sock" --log.level warn --no-collector.threads \
  --collector.sockets --collector.pcap --capture.interface=lo --capture.filter "udp" --soaker --config.check \
  >"$INTEG_TMP/out" 2>"$INTEG_TMP/err" || rc=$?
if [ "$rc" -eq 0 ] && grep -q "config OK" "$INTEG_TMP/out"; then
  integ_pass "the daemon's flags, both spellings, check OK"
else
  integ_fail "the daemon's flags: exit $rc: $(cat "$INTEG_TMP/err")"
fi

integ_finish
