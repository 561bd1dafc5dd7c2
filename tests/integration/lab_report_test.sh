#!/usr/bin/env bash
# End to end through --replay: every lab scenario (lab/simulate.py) is
# simulated into a recording with ground truth, and `bottleneckd --report
# --replay DIR --format json` must give each run its expected label and
# resource (recording.yaml's `expected:`), a verdict within 10 s of the load
# step (the report's settled windows start 5 windows in), and a malformed
# recording must be refused with exit 2 naming the file.
# Every run of every scenario is asserted (docs/verdict-rules.md section 8);
# lab/accuracy.py measures the same runs with their time to verdict. The
# seeds' sweep is also reported with its runs removed, found by segmentation.
#
# usage: lab_report_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=lab_report_test
BIN=${1:?usage: lab_report_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: lab_report_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 540 "$@"
integ_init

for scenario in $("$INTEG_PYTHON" -c "import sys; sys.path.insert(0, '$SRC/lab'); import scenarios; print(' '.join(scenarios.SCENARIOS))"); do
  rec="$INTEG_TMP/$scenario"
  "$INTEG_PYTHON" "$SRC/lab/simulate.py" "$scenario" "$rec" >/dev/null || integ_die "lab/simulate.py $scenario failed"
  if ! "$BIN" --config.file="$SRC/lab/replay.yaml" --report --replay "$rec" --format json >"$rec.json" 2>"$rec.err"; then
    integ_fail "$scenario: --report --replay failed: $(cat "$rec.err")"
    continue
  fi
  while IFS=$'\t' read -r run want got windows; do
    if [ "$want" = "$got" ]; then
      integ_pass "$scenario/$run: $got ($windows settled windows)"
    else
      integ_fail "$scenario/$run: expected '$want', got '$got'"
    fi
  done < <("$INTEG_PYTHON" - "$rec.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for r in report["runs"]:
    e = r.get("expected")
    if not e:
        continue
    v = r["verdict"]
    want = (e["label"] + " " + e["resource"]).strip()
    got = (v["label"] + " " + v["resource"]).strip()
    # the label must hold in every settled window but the hysteresis tail
    print("%s\t%s\t%s\t%d/%d" % (r["name"], want, got, v["windows"], r["windows"]))
PY
)
done

# The seeds' sweep without its runs: the report finds the load steps itself
# (segments, docs/segments.md), one per run at the run's offered rate, with
# the run's verdict.
nr="$INTEG_TMP/seed-sweep-no-runs"
cp -r "$INTEG_TMP/seed-sweep" "$nr"
sed -i '/^runs:/,$d' "$nr/recording.yaml"
if "$BIN" --report --replay "$nr" --format json >"$nr.json" 2>"$nr.err"; then
  if out="$("$INTEG_PYTHON" - "$INTEG_TMP/seed-sweep.json" "$nr.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
segs = json.load(open(sys.argv[2]))["runs"]
if len(segs) != len(runs):
    sys.exit("%d segments for %d runs: %s" % (len(segs), len(runs), [s["name"] for s in segs]))
for r, s in zip(runs, segs):
    want = r["offered_packets_per_second"]
    got = s["offered_packets_per_second"]
    if abs(got - want) > 0.03 * want:
        sys.exit("%s: segment offered %.0f pps, run %.0f" % (r["name"], got, want))
    if (s["verdict"]["label"], s["verdict"]["resource"]) != (r["verdict"]["label"], r["verdict"]["resource"]):
        sys.exit("%s: segment verdict %s, run %s" % (r["name"], s["verdict"]["label"], r["verdict"]["label"]))
print("%d segments, offered within 3 %% of each run's, same verdicts" % len(segs))
PY
  )"; then
    integ_pass "seed-sweep without runs: $out"
  else
    integ_fail "seed-sweep without runs: $out"
  fi
else
  integ_fail "seed-sweep without runs: --report failed: $(cat "$nr.err")"
fi

# A malformed recording: refused with exit 2 and the file named.
bad="$INTEG_TMP/bad"
mkdir -p "$bad"
printf 'format: bottleneckd-recording\nversion: 99\n' >"$bad/recording.yaml"
"$BIN" --report --replay "$bad" >/dev/null 2>"$bad.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "recording.yaml" "$bad.err"; then
  integ_pass "malformed recording refused with exit 2: $(head -1 "$bad.err")"
else
  integ_fail "malformed recording: exit $rc, stderr: $(cat "$bad.err")"
fi
integ_finish
