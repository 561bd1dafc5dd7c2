#!/usr/bin/env bash
# The docs' command lines against the binary (tests/integration/docs_commands.py):
# every bottleneckd line of a code block in README.md and docs/*.md uses only
# flags its command's --help lists, and the ones that end by themselves
# (--help, --config.check, --once) run and exit 0; each figure of
# docs/performance.md's summary table names its bench command, and every
# bench/ file the docs name exists.
#
# usage: docs_commands_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=docs_commands_test
BIN=${1:?usage: docs_commands_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: docs_commands_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 180 "$@"
integ_init
integ_require_tools python3
python3 "$SRC/tests/integration/docs_commands.py" "$BIN" "$SRC" >"$INTEG_TMP/out" 2>&1
rc=$?
grep -E '^(PASS|FAIL): [^ ]+:[0-9]+:' "$INTEG_TMP/out" | grep '^FAIL' | while IFS= read -r l; do echo "$l"; done
summary=$(tail -n 1 "$INTEG_TMP/out")
if [ "$rc" = 0 ]; then
  integ_pass "docs' command lines: ${summary#PASS: }"
else
  grep '^FAIL' "$INTEG_TMP/out" | while IFS= read -r l; do integ_fail "${l#FAIL: }"; done
  integ_fail "docs' command lines: ${summary#FAIL: } (python exit $rc)"
fi
integ_finish
