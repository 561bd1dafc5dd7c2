#!/usr/bin/env bash
# Runs one lab (tests/echo_lab/*_test.sh) up to three times, retrying only
# for the environment. The labs put real load on this machine's kernel and
# judge what the daemon said of it; a failed check of what the daemon said
# (a verdict, its evidence, a figure against the lab's ground truth) is a
# product failure and is not retried. An attempt is retried only when this
# machine failed the load (docs/development.md, "The labs on a shared
# machine"), and the retry says which way:
#   - an "ENVIRONMENT: ..." line of the attempt (lab.sh lab_environment: the
#     echo CPU's steal at 5 % or more of a scenario, ticks the lab daemon
#     skipped because sampling overran its interval; the generator stalled,
#     which counts only for a scenario with a failed check of its own: a
#     fresh-clone CI of 4e14549 retried lab.echo's failed `wait` plateau
#     for stalls seen in k0, k20000 and handoff);
#   - the host's steal at 5 % or more of the attempt's CPU time (/proc/stat,
#     measured here around the attempt);
#   - a failed ground-truth check of the lab's own ("NAME: kernel: ...": the
#     kernel's counters did not show the load the scenario asked for;
#     "NAME: generator: ...": the generator's own counts did not show the
#     plateau or the rise the scenario needs);
#   - an attempt that stopped before judging anything (no FAIL line).
# Every failed attempt is printed in full and its FAIL lines and causes are
# appended to LAB_RETRIES_LOG (default: lab-retries.log in the working
# directory), which scripts/test.sh lists in its summary.
#
# usage: attempts.sh NAME SCRIPT ARGS...   (env: LAB_ATTEMPTS, default 3)
name=${1:?usage: attempts.sh NAME SCRIPT ARGS...}
script=${2:?usage}
shift 2
log=${LAB_RETRIES_LOG:-$PWD/lab-retries.log}
attempts=${LAB_ATTEMPTS:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# "total steal" jiffies of all CPUs (/proc/stat's first line).
host_ticks() {
  awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; ++i) t += $i; print t, $9; exit }' /proc/stat
}
for ((a = 1; a <= attempts; a++)); do
  read -r total0 steal0 <<<"$(host_ticks)"
  bash "$script" "$@" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] && exit 0
  read -r total1 steal1 <<<"$(host_ticks)"
  fails=$(grep -E '^FAIL: ' "$out" | sed 's/^FAIL: //' | cut -c1-700)
  # A generator's stall explains its own scenario's failures only: the
  # scenarios whose checks failed ("FAIL: NAME: ..."). One in another
  # scenario is said in the log, and is no cause.
  failed_names=$(grep -E '^FAIL: [^:]+: ' "$out" | sed -E 's/^FAIL: ([^:]+): .*/\1/' | sort -u)
  causes="" unrelated=""
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    if [[ $line == *": the generator stalled "* ]] && ! grep -qxF -- "${line%%:*}" <<<"$failed_names"; then
      unrelated+=$'\n'"$line"
    else
      causes+=$'\n'"$line"
    fi
  done < <(grep -E '^ENVIRONMENT: ' "$out" | sed 's/^ENVIRONMENT: //' | cut -c1-240)
  steal=$(awk -v t=$((total1 - total0)) -v s=$((steal1 - steal0)) 'BEGIN { if (t > 0 && s / t >= 0.05) printf "%.1f", 100 * s / t }')
  [ -n "$steal" ] && causes+=$'\n'"the host's steal was $steal % of the attempt's CPU time"
  truth=$(grep -E '^FAIL: [^ ]+: (kernel|generator): ' "$out" | sed 's/^FAIL: //' | cut -c1-160)
  [ -n "$truth" ] && causes+=$'\n'"the lab's own ground truth failed: $(echo "$truth" | head -n 1)"
  if [ -z "$fails" ]; then
    fails="exit $rc, no FAIL line: $(tail -n 3 "$out" | tr '\n' ' ' | cut -c1-240)"
    causes+=$'\n'"the lab stopped before judging (exit $rc)"
  fi
  causes=$(echo "$causes" | sed '/^$/d')
  {
    echo "$name: attempt $a of $attempts failed ($(date -u +%FT%TZ)):"
    echo "$fails" | sed 's/^/  /'
    [ -z "$unrelated" ] || echo "$unrelated" | sed '/^$/d; s/^/  seen in a scenario with no failed check, no cause: /'
    if [ -n "$causes" ]; then
      echo "$causes" | sed 's/^/  environment: /'
    else
      echo "  product failure: no environment cause, not retried"
    fi
  } >>"$log"
  if [ -z "$causes" ]; then
    echo "=== $name: attempt $a failed on what the daemon said, with no environment cause (steal, a stalled tick," \
      "the lab's own ground truth): a product failure, not retried (tests/echo_lab/attempts.sh)"
    exit "$rc"
  fi
  if [ "$a" -lt "$attempts" ]; then
    echo "=== $name: attempt $((a + 1)) of $attempts, retried for the environment:"
    echo "$causes" | sed 's/^/===   /'
  fi
done
exit "$rc"
