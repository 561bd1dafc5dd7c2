#!/usr/bin/env bash
# The seeds' sweep on this kernel, long (tests/echo_lab runs a short one in the
# suite): for each K in KS, the echo server makes K copies per datagram and the
# generator steps through RATES for STEP seconds each, as one `bottleneckd run`
# per K; the daemon in the box's namespace reports each run's segments. Prints
# bottleneckd's own report (`--report --last N`) and a Markdown table of every
# step: the generator's sent and echoed rates beside bottleneckd's offered and
# application rates and the segment's verdict. A measurement: nothing here
# passes or fails (docs/verdict-rules.md section 9).
# Needs root and 2 CPUs (generator on cpu0, echo on cpu1); everything it makes
# is removed on exit; every load is bounded by the generator's steps.
#
# usage: bench/echo_lab_sweep.sh BUILD_DIR   (the build's bottleneckd and tests/lab_*)
# env:   KS="0 8 32 3000 10000" RATES="4000 8000 12000 16000 24000" STEP=15 PAYLOAD=1024
TEST_NAME=echo_lab_sweep
BUILD=${1:?usage: bench/echo_lab_sweep.sh BUILD_DIR}
SRC="$(cd "$(dirname "$0")/.." && pwd)"
KS=${KS:-"0 8 32 3000 10000"}
RATES=${RATES:-"4000 8000 12000 16000 24000"}
STEP=${STEP:-15}
PAYLOAD=${PAYLOAD:-1024}
BIN="$BUILD/bottleneckd"
LAB_SERVER="$BUILD/tests/lab_echo_server"
LAB_GEN="$BUILD/tests/lab_load_gen"
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 3600 "$@"
integ_init
# shellcheck source=tests/echo_lab/lab.sh
. "$SRC/tests/echo_lab/lab.sh"
for f in "$BIN" "$LAB_SERVER" "$LAB_GEN"; do [ -x "$f" ] || integ_die "$f missing: build $BUILD first"; done
lab_up
STATE="$INTEG_TMP/state"
mkdir -p "$STATE"
printf 'soaker:\n  mode: always\ncollectors:\n  threads:\n    targets:\n      - name: udpecho\n' >"$INTEG_TMP/lab.yaml"
lab_start_daemon PORT bench --config.file="$INTEG_TMP/lab.yaml" \
  --path.state="$STATE" --control.socket="$STATE/control.sock"
runs=()
n=0
for k in $KS; do
  lab_server_start 1 "$k" $((STEP * $(wc -w <<<"$RATES") + 30))
  sleep 1.5
  integ_log "K=$k: $RATES datagrams/s, $STEP s each"
  # shellcheck disable=SC2046,SC2086
  "$BIN" run --config.file="$INTEG_TMP/lab.yaml" --path.state="$STATE" --control.socket="$STATE/control.sock" \
    --name "k$k" -- $(lab_gen_cmd "$PAYLOAD" 0 "$STEP" $RATES) >"$INTEG_TMP/k$k.gen" 2>"$INTEG_TMP/k$k.err" ||
    integ_die "bottleneckd run k$k failed: $(tail -n 3 "$INTEG_TMP/k$k.err")"
  lab_server_stop
  "$BIN" --report --path.state="$STATE" --run "k$k" --format json >"$INTEG_TMP/k$k.json"
  runs+=("k$k" "$INTEG_TMP/k$k.json" "$INTEG_TMP/k$k.gen")
  n=$((n + 1))
done
echo "## echo lab sweep: $(uname -r), $(nproc) CPUs, $PAYLOAD-byte datagrams, $STEP s steps"
echo
"$BIN" --report --path.state="$STATE" --last "$n"
echo
"$INTEG_PYTHON" "$SRC/tests/echo_lab/lab_check.py" table "${runs[@]}"
