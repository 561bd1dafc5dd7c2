#!/usr/bin/env bash
# Time to the verdict after a load step, and label changes on steady load
# (issue 49: goals <= 5 s and 0), on this kernel: runs the echo lab
# (tests/echo_lab/echo_lab_test.sh: its scenarios in network namespaces, the
# daemon's published verdict scraped twice a second) RUNS times and prints
# each scenario's figures from the lab's timeline check (lab_check.py
# timeline: from the start of the scenario's first loaded step to the first
# scrape of the expected label and resource, then the changes until the
# scenario ends; "stored": the same from the daemon's run store, the
# published verdict of each window, which a slow scrape cannot delay), then
# the worst of each across the runs. A measurement:
# nothing here passes or fails on a time (a failed lab check is printed).
# Needs root and 2 CPUs, like the lab; everything it makes is removed.
#
# usage: bench/time_to_verdict.sh BUILD_DIR [RUNS]   (the build's bottleneckd and tests/lab_*; RUNS=1)
set -uo pipefail
BUILD=${1:?usage: bench/time_to_verdict.sh BUILD_DIR [RUNS]}
RUNS=${2:-1}
SRC="$(cd "$(dirname "$0")/.." && pwd)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= RUNS; i++)); do
  echo "=== run $i of $RUNS: tests/echo_lab/echo_lab_test.sh"
  bash "$SRC/tests/echo_lab/echo_lab_test.sh" "$BUILD/bottleneckd" "$SRC" "$BUILD/tests/lab_echo_server" \
    "$BUILD/tests/lab_load_gen" >"$out.$i" 2>&1
  echo "lab exit $?"
  grep -E '^(FIGURE: ((stored )?time to verdict|changes per minute|scrapes)|FAIL: )' "$out.$i" | sed 's/^/  /'
  cat "$out.$i" >>"$out"
  rm -f "$out.$i"
done
echo "=== worst over $RUNS run(s) (seconds after the load step; changes per minute)"
awk '/^FIGURE: time to verdict/ { n[$5]++; if ($6 > t[$5]) t[$5] = $6 }
     /^FIGURE: stored time to verdict/ && $8 == "s" { if ($7 > s[$6]) s[$6] = $7 }
     /^FIGURE: changes per minute/ { if ($6 > c[$5]) c[$5] = $6 }
     END { for (l in t) printf "  %-10s time to verdict %5.1f s scraped, %5.1f s stored (%d scenarios), changes %.1f/min\n", l, t[l], s[l], n[l], c[l] }' "$out"
