#!/usr/bin/env bash
# The on-CPU profiler (docs/profile.md) on this kernel, as a user runs it:
# - as root, `bottleneckd run` over a CPU-bound program built with frame
#   pointers (profile_hot.c: main -> outer -> copy_loop), every CPU's stacks
#   walked during the run (stacks: runs: the test's CPUs are shared with
#   whatever else runs, so the CPU a verdict names may be another's): the
#   program's top function is copy_loop, the report's top function is the
#   same in text and JSON, and the program's folded stacks walk from main to
#   copy_loop;
# - the same program without frame pointers: its stacks are marked
#   [truncated], never given callers it cannot see;
# - without CAP_BPF and CAP_PERFMON: one log line naming them, the run goes
#   on without a profile, and --format folded says the run has none (exit 2);
# - --format folded without --run is refused with the usage;
# - a run of the program waiting (profile_hot.c's `wait`: main -> outer_wait
#   -> sleep_step, 1 ms nanosleeps): its off-CPU stacks (offcpu, docs/offcpu.md)
#   walk from main into the kernel's nanosleep (offcpu follows the command
#   `bottleneckd run` started: no threads target is configured), weigh most
#   of the run's time, and the text and JSON reports say where it waited;
#   without the capabilities --format folded-offcpu says the run has none
#   (exit 2);
# - the HTML reports of the fp and wait runs, loaded in headless Chromium:
#   fp's flame graph renders and lists the JSON report's top functions as
#   frames, wait's off-CPU flame graph renders beside the JSON's top waits.
#
# usage: profile_test.sh BOTTLENECKD SOURCE_DIR (PROFILE_HOT_FP and
# PROFILE_HOT_NOFP in the environment: tests/CMakeLists.txt)
TEST_NAME=profile_test
BIN=${1:?usage: profile_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: profile_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
integ_require_tools setpriv grep python3
[ "$(id -u)" -eq 0 ] || integ_die "needs root: it loads an eBPF program"
[ -x "${PROFILE_HOT_FP:-}" ] && [ -x "${PROFILE_HOT_NOFP:-}" ] || integ_die "PROFILE_HOT_FP/NOFP are not set"
STATE="$INTEG_TMP/state"
printf 'collectors:\n  profile:\n    stacks: runs\n' >"$INTEG_TMP/runs.yaml"

# run NAME BINARY [bottleneckd [MODE]]: `bottleneckd run` over BINARY for 4 s.
run() {
  "${3:-$BIN}" run --config.file="$INTEG_TMP/runs.yaml" --name "$1" --path.state="$STATE" --log.level=info -- \
    "$2" 4 ${4:+"$4"} >"$INTEG_TMP/$1.out" 2>"$INTEG_TMP/$1.log"
}
report() { "$BIN" --report --path.state="$STATE" --run "$@"; }

# 1. Frame pointers, root.
run fp "$PROFILE_HOT_FP" || integ_fail "fp: bottleneckd run exited $?: $(tail -n 3 "$INTEG_TMP/fp.log")"
if grep -q 'msg="profile loaded: sampling on-CPU stacks with eBPF"' "$INTEG_TMP/fp.log"; then
  integ_pass "fp: the profiler loaded"
else
  integ_fail "fp: no load line: $(grep profile "$INTEG_TMP/fp.log")"
fi
report fp >"$INTEG_TMP/fp.txt"
report fp --format json >"$INTEG_TMP/fp.json"
report fp --format folded >"$INTEG_TMP/fp.folded"
# The run's summary (on stderr, after the log lines), shown, not checked:
# its evidence is the last window's that held the label, and a verdict held
# by hysteresis can still name the CPU the program just left (once in
# eight runs here), whose window then walked no busy sample of it. The echo lab
# checks the evidence where the named thread is a target (lab_check.py).
integ_log "fp: the run's evidence: $(grep -o '[a-z0-9 ]* on-CPU: .*' "$INTEG_TMP/fp.log" | head -1)"
# The program's own top function, from its folded stacks (rooted at its name).
prog_top=$(awk '/^profile_hot_fp;/ { n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n }
  END { for (x in s) if (s[x] > best) { best = s[x]; top = x } print top }' "$INTEG_TMP/fp.folded")
text_top=$(sed -n "/^on-CPU profile of run 'fp'/{n;p;q}" "$INTEG_TMP/fp.txt" | sed -E 's/^ *[0-9.]+ %  //')
json_top=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["top_functions"][0]["function"])' "$INTEG_TMP/fp.json")
if [ "$prog_top" = "copy_loop (profile_hot_fp)" ]; then
  integ_pass "fp: the program's top function is copy_loop"
else
  integ_fail "fp: the program's top function is '$prog_top'"
fi
if [ -n "$json_top" ] && [ "$json_top" = "$text_top" ]; then
  integ_pass "fp: the report's top function is the same in text and JSON: $json_top"
else
  integ_fail "fp: top function text '$text_top', json '$json_top'"
fi
# The hot stack, walked from main: its samples are most of the program's.
hot=$(awk '/main \(profile_hot_fp\);outer \(profile_hot_fp\);copy_loop \(profile_hot_fp\) [0-9]+$/ { n += $NF } END { print n + 0 }' "$INTEG_TMP/fp.folded")
all=$(awk '/^profile_hot_fp;/ { n += $NF } END { print n + 0 }' "$INTEG_TMP/fp.folded")
if [ "$all" -gt 0 ] && awk -v h="$hot" -v a="$all" 'BEGIN { exit !(h >= 0.8 * a) }'; then
  integ_pass "fp: $hot of the program's $all samples walk main;outer;copy_loop"
else
  integ_fail "fp: $hot of $all samples walk main;outer;copy_loop: $(grep '^profile_hot_fp;' "$INTEG_TMP/fp.folded" | head -3)"
fi

# 2. No frame pointers. (The thread's name is the kernel's, cut to 15 bytes.)
run nofp "$PROFILE_HOT_NOFP" || integ_fail "nofp: bottleneckd run exited $?"
report nofp --format folded >"$INTEG_TMP/nofp.folded"
if grep -q '^profile_hot_nof;\[truncated\];.*copy_loop (profile_hot_nofp) [0-9]*$' "$INTEG_TMP/nofp.folded" &&
  ! grep -q 'main (profile_hot_nofp);outer (profile_hot_nofp);copy_loop' "$INTEG_TMP/nofp.folded"; then
  integ_pass "nofp: copy_loop's stacks are marked [truncated], with no callers guessed"
else
  integ_fail "nofp: $(grep '^profile_hot_nof;' "$INTEG_TMP/nofp.folded" | head -3)"
fi

# 2b. Off-CPU stacks: the program waiting, with frame pointers.
run wait "$PROFILE_HOT_FP" "$BIN" wait || integ_fail "wait: bottleneckd run exited $?: $(tail -n 3 "$INTEG_TMP/wait.log")"
report wait --format folded-offcpu >"$INTEG_TMP/wait.offcpu" 2>"$INTEG_TMP/wait.offcpu.err" ||
  integ_fail "wait: --format folded-offcpu: $(cat "$INTEG_TMP/wait.offcpu.err")"
report wait >"$INTEG_TMP/wait.txt"
report wait --format json >"$INTEG_TMP/wait.json"
# Microseconds of the program's stacks, and of those walked from main through
# outer_wait into the kernel's nanosleep (sleep_step itself may be hidden:
# libc's wrapper keeps no frame pointer, so the walk goes from it to its
# caller's caller).
prog_us=$(awk '/^profile_hot_fp;/ { n += $NF } END { print n + 0 }' "$INTEG_TMP/wait.offcpu")
sleep_us=$(awk '/^profile_hot_fp;.*main \(profile_hot_fp\);outer_wait \(profile_hot_fp\);.*nanosleep.*\[kernel\]/ { n += $NF }
  END { print n + 0 }' "$INTEG_TMP/wait.offcpu")
if awk -v p="$prog_us" -v s="$sleep_us" 'BEGIN { exit !(p >= 1000000 && s >= 0.8 * p) }'; then
  integ_pass "wait: $sleep_us of the program's $prog_us us off the CPU walk main;outer_wait into nanosleep"
else
  integ_fail "wait: $sleep_us of $prog_us us walk main;outer_wait into nanosleep: $(head -3 "$INTEG_TMP/wait.offcpu")"
fi
text_wait=$(sed -n "/^off-CPU stacks of run 'wait'/{n;p;q}" "$INTEG_TMP/wait.txt" | sed -E 's/^ *[0-9.]+ %  //')
json_wait=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["offcpu"]["top_waits"][0]["wait"])' "$INTEG_TMP/wait.json")
if [ -n "$json_wait" ] && [ "$json_wait" = "$text_wait" ] && [[ "$json_wait" == profile_hot_fp:* ]]; then
  integ_pass "wait: the report's top wait is the same in text and JSON: $json_wait"
else
  integ_fail "wait: top wait text '$text_wait', json '$json_wait'"
fi

# 3. Without the capabilities.
printf '#!/bin/sh\nexec setpriv --bounding-set=-all --inh-caps=-all -- %s "$@"\n' "$BIN" >"$INTEG_TMP/bottleneckd-nocaps"
chmod +x "$INTEG_TMP/bottleneckd-nocaps"
run nocaps "$PROFILE_HOT_FP" "$INTEG_TMP/bottleneckd-nocaps" || integ_fail "nocaps: bottleneckd run exited $?"
n=$(grep -c 'msg="profile' "$INTEG_TMP/nocaps.log")
line=$(grep 'msg="profile' "$INTEG_TMP/nocaps.log")
if [ "$n" -eq 1 ] && grep -q 'msg="profile off: no on-CPU stacks in the evidence".*CAP_BPF' "$INTEG_TMP/nocaps.log"; then
  integ_pass "nocaps: one log line: $line"
else
  integ_fail "nocaps: $n profile log lines: $line"
fi
report nocaps --format folded >"$INTEG_TMP/nocaps.folded" 2>"$INTEG_TMP/nocaps.err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$INTEG_TMP/nocaps.folded" ] && grep -q "run 'nocaps' has no on-CPU profile" "$INTEG_TMP/nocaps.err"; then
  integ_pass "nocaps: --format folded says the run has no profile (exit 2)"
else
  integ_fail "nocaps: --format folded exit $rc: $(cat "$INTEG_TMP/nocaps.err")"
fi

report nocaps --format folded-offcpu >"$INTEG_TMP/nocaps.offcpu" 2>"$INTEG_TMP/nocaps.offcpu.err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$INTEG_TMP/nocaps.offcpu" ] &&
  grep -q "run 'nocaps' has no off-CPU stacks (offcpu was not loaded while the run ran" "$INTEG_TMP/nocaps.offcpu.err"; then
  integ_pass "nocaps: --format folded-offcpu says the run has no off-CPU stacks (exit 2)"
else
  integ_fail "nocaps: --format folded-offcpu exit $rc: $(cat "$INTEG_TMP/nocaps.offcpu.err")"
fi

# 4. --format folded needs a run.
"$BIN" --report --path.state="$STATE" --format folded >/dev/null 2>"$INTEG_TMP/norun.err"
rc=$?
if [ "$rc" -ne 0 ] && grep -q -- '--report --run NAME --format folded' "$INTEG_TMP/norun.err"; then
  integ_pass "--format folded without --run: refused with the usage (exit $rc)"
else
  integ_fail "--format folded without --run: exit $rc: $(cat "$INTEG_TMP/norun.err")"
fi

# 5. The HTML reports in headless Chromium (flags as html_report_test.sh's,
# offline, bounded): fp's on-CPU flame graph and wait's off-CPU one, each
# laid out with every frame sized and every label in its box, their tables
# the JSON's (html_check.py profile, offcpu; fp's top functions, step 1).
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
# html_dom RUN KIND WHAT: the run's HTML report in Chromium, checked by
# html_check.py KIND against its JSON report.
html_dom() {
  local run=$1 kind=$2 what=$3 out rc
  if [ -z "$CHROMIUM" ]; then
    integ_fail "$run html: chromium is not installed (scripts/install-deps.sh installs it)"
    return
  fi
  if ! report "$run" --format html >"$INTEG_TMP/$run.html" 2>"$INTEG_TMP/$run.html.err"; then
    integ_fail "$run html: --format html failed: $(cat "$INTEG_TMP/$run.html.err")"
    return
  fi
  "$INTEG_PYTHON" "$SRC/tests/integration/html_check.py" measure "$INTEG_TMP/$run.html" "$INTEG_TMP/$run-measured.html"
  timeout -k 2 30 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --user-data-dir="$INTEG_TMP/chromium" --no-first-run --no-default-browser-check --disable-extensions \
    --disable-background-networking --disable-component-update --disable-sync --proxy-server=127.0.0.1:9 \
    --dump-dom "file://$INTEG_TMP/$run-measured.html" >"$INTEG_TMP/$run.dom" 2>"$INTEG_TMP/$run.chromium.log" &
  INTEG_PIDS+=("$!")
  wait "$!"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    integ_fail "$run html: chromium --dump-dom exited $rc (log: $(tail -3 "$INTEG_TMP/$run.chromium.log"))"
  elif out="$("$INTEG_PYTHON" "$SRC/tests/integration/html_check.py" "$kind" "$INTEG_TMP/$run.dom" \
    "$INTEG_TMP/$run.json" 2>&1)"; then
    integ_pass "$run html: $what ($(printf '%s\n' "$out" | wc -l) checks)"
  else
    integ_fail "$run html: $(printf '%s\n' "$out" | grep -v '^ok:' | head -10)"
  fi
}
html_dom fp profile "the flame graph renders with the JSON's top functions"
html_dom wait offcpu "the off-CPU flame graph renders with the JSON's top waits"
integ_finish
