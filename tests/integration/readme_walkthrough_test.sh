#!/usr/bin/env bash
# The README's Quick start and "Using it" blocks, walked as a user walks them
# (tests/integration/readme_walkthrough.py): `./scripts/run.sh` builds the
# release tree and serves this host; each line of "Using it" runs from the
# source directory (daemons on a loopback port the kernel picks, state in a
# private directory) and must exit 0 or serve /metrics; a line that cannot run
# here says why; then every sqlite3 query of docs/run-store.md runs against
# the run store the walk made. Runs alone (tests/CMakeLists.txt: RUN_SERIAL): run.sh's
# build would take both cores from tests that measure.
#
# usage: readme_walkthrough_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=readme_walkthrough_test
BIN=${1:?usage: readme_walkthrough_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: readme_walkthrough_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 1500 "$@"
integ_init
integ_require_tools python3 man
python3 "$SRC/tests/integration/readme_walkthrough.py" "$BIN" "$SRC" "$INTEG_TMP" >"$INTEG_TMP/out" 2>&1
rc=$?
grep -E '^(NOT RUN|FAIL): ' "$INTEG_TMP/out" | grep '^NOT RUN' || true
summary=$(tail -n 1 "$INTEG_TMP/out")
if [ "$rc" = 0 ]; then
  integ_pass "README walkthrough: ${summary#PASS: }"
else
  grep '^FAIL: ' "$INTEG_TMP/out" | sed '$d' | while IFS= read -r l; do integ_fail "${l#FAIL: }"; done
  integ_fail "README walkthrough: ${summary#FAIL: } (python exit $rc)"
fi
integ_finish
