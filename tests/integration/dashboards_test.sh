#!/usr/bin/env bash
# The Grafana dashboards (etc/grafana/) and the fleet's recording rules
# (etc/prometheus/bottleneckd-recording.yml), tested the way they are used,
# without Grafana (not in Debian 12):
# - structure (tests/integration/dashboards.py check): unique panel ids,
#   gridPos without overlap inside 24 columns, ${datasource} on every panel
#   and target, no datasource UID literal, a unit and a description naming
#   an existing doc section by its installed path on every panel
#   (/usr/share/doc/bottleneckd/FILE.md § SECTION), no relative or markdown
#   link in any description (Grafana cannot follow one), the datasource and instance
#   variables, metric names that exist; and the checker rejects deliberately
#   broken copies, so it is shown to check;
# - promtool check rules on the recording rules, and promtool test rules
#   (tests/prometheus/recording_test.yml) on their values;
# - every panel's every query against a real Prometheus with the recording
#   rules loaded, scraping five daemons on loopback every second: three over
#   fixture trees (seed-box, pcie-box, large-host), one over a tree that a
#   recording of the lab's seed sweep (lab/simulate.py) is played into one
#   sample a second (tests/integration/recording_feeder.py: counters move,
#   the verdict changes, the udpecho thread is a target) and one on this host
#   with a run started through its control socket (the soaker runs, a target
#   thread exists) and a capture on lo (the drop ladder's application rung).
#   Each target, variables substituted, goes to /api/v1/query_range over the
#   test's span and must return series with numbers: for the live-changing
#   instance every host panel must be filled but the run's and the capture's
#   own series (soaker, capture), which the live host must fill; every other
#   target must be filled on some instance. A target that returns nothing is
#   a broken panel: the test names it and its query.
#
# usage: dashboards_test.sh BOTTLENECKD SOURCE_DIR. Bounded to 90 s.
set -uo pipefail
TEST_NAME=dashboards_test
BIN=${1:?usage: dashboards_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: dashboards_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 90 "$@"
[ -x "$BIN" ] || integ_die "bottleneckd binary '$BIN' is missing or not executable"
integ_require_tools prometheus promtool curl "$INTEG_PYTHON" timeout
[ "$(id -u)" -eq 0 ] || integ_die "needs root: the live daemon captures on lo (CAP_NET_RAW)"
integ_init

DASH="$SRC/tests/integration/dashboards.py"
HOST_JSON="$SRC/etc/grafana/bottleneckd-host.json"
FLEET_JSON="$SRC/etc/grafana/bottleneckd-fleet.json"
RULES="$SRC/etc/prometheus/bottleneckd-recording.yml"

# --- structure --------------------------------------------------------------------
if out="$("$INTEG_PYTHON" "$DASH" check "$SRC" "$HOST_JSON" "$FLEET_JSON" 2>&1)"; then
  integ_pass "structure of bottleneckd-host.json and bottleneckd-fleet.json"
else
  integ_fail "structure: $out"
fi

# Broken copies: each mutation must be rejected with the problem it made.
mutate() {  # NAME EXPECTED-MESSAGE PYTHON (d is the host dashboard, p its panels)
  local f="$INTEG_TMP/broken-$1.json"
  "$INTEG_PYTHON" - "$HOST_JSON" "$f" "$3" <<'PY' || integ_die "mutation $1 failed"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["panels"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  if out="$("$INTEG_PYTHON" "$DASH" check "$SRC" "$f" 2>&1)"; then
    integ_fail "the checker accepts a broken copy ($1)"
  elif grep -q -- "$2" <<<"$out"; then
    integ_pass "the checker rejects a broken copy ($1): $(grep -m 1 -- "$2" <<<"$out")"
  else
    integ_fail "the checker rejects the copy ($1) but not for '$2': $out"
  fi
}
mutate duplicate-id "also used by panel" 'p[3]["id"] = p[1]["id"]'
mutate overlap "overlaps panel" 'p[2]["gridPos"]["x"] = p[1]["gridPos"]["x"]'
mutate too-wide "does not fit in 24 columns" 'p[0]["gridPos"]["w"] = 30'
mutate uid-literal "is not" 'p[4]["targets"][0]["datasource"] = {"type": "prometheus", "uid": "P1809F7CD0C75ACF3"}'
mutate panel-uid "is not" 'p[5]["datasource"] = "Prometheus"'
mutate no-unit "unit is not set" 'del p[6]["fieldConfig"]["defaults"]["unit"]'
mutate no-description "no description" 'p[7]["description"] = ""'
mutate dead-doc-section "no such section" 'p[8]["description"] = p[8]["description"].replace(" § ", " § No such ", 1)'
mutate missing-doc "which is no docs/ file" 'p[8]["description"] = p[8]["description"].replace("/usr/share/doc/bottleneckd/", "/usr/share/doc/bottleneckd/no-", 1)'
mutate markdown-link "link Grafana cannot follow" 'p[8]["description"] += " [docs/metrics.md § CPU](../../docs/metrics.md#cpu-collector-cpu-procstat-procpressurecpu)"'
mutate relative-doc-path "link Grafana cannot follow" 'p[11]["description"] += " See docs/metrics.md."'
mutate relative-dashboard-link "link Grafana cannot follow" 'd["description"] += " (../README.md)"'
mutate invented-metric "is not in docs/metrics.md" 'p[9]["targets"][0]["expr"] = "bottleneckd_made_up_ratio"'
mutate no-datasource-var "no \`datasource\` variable" 'd["templating"]["list"] = [v for v in d["templating"]["list"] if v["name"] != "datasource"]'
mutate no-instance-var "no \`instance\` query variable" 'd["templating"]["list"] = [v for v in d["templating"]["list"] if v["name"] != "instance"]'
mutate undefined-var "undefined variable" 'p[10]["targets"][0]["expr"] += " * $host"'
mutate no-schema "schemaVersion" 'del d["schemaVersion"]'
# The dashboard linter's rules: rate over a fixed range, a raw counter.
mutate fixed-rate-range "use \[\$__rate_interval\]" 'p[10]["targets"][0]["expr"] = "rate(bottleneckd_interrupts_total[1m])"'
mutate raw-counter "is not inside rate()" 'p[10]["targets"][0]["expr"] = "sum(bottleneckd_interrupts_total)"'
# The per-CPU panels out of their collapsed row: on a 128-CPU host with All
# selected, 128 panels before the drop ladder.
mutate repeat-outside-row "outside a row" 'q = [r for r in p if r["type"] == "row"][0]["panels"].pop(0); q["repeat"] = "cpu"; q["gridPos"]["y"] = 300; p.insert(8, q)'
mutate open-row-with-panels "is not collapsed" '[r for r in p if r["type"] == "row"][0]["collapsed"] = False'
mutate flag-on-percent "0/1 flag drawn on the panel's percent axis" '[o["properties"].__setitem__(slice(None), [x for x in o["properties"] if x["id"] != "unit"]) for q in p if q["title"] == "Verdict scores, confidence and plateau" for o in q["fieldConfig"]["overrides"]]'

if out="$(promtool check rules "$RULES" 2>&1)"; then
  integ_pass "promtool check rules: $(grep -o '[0-9]* rules found' <<<"$out")"
else
  integ_fail "promtool check rules $RULES: $out"
fi

# Each rule's value on hand-written hosts (a shared downtrained link counted
# once, the share of the hour bound, ...).
if out="$(cd "$SRC/tests/prometheus" && promtool test rules recording_test.yml 2>&1)"; then
  integ_pass "promtool test rules tests/prometheus/recording_test.yml"
else
  integ_fail "promtool test rules tests/prometheus/recording_test.yml: $out"
fi

# --- the daemons ------------------------------------------------------------------
JOBS=()
TARGETS=()
for fx in seed-box pcie-box large-host; do
  FX="$SRC/tests/fixtures/$fx"
  printf 'interval: 1s\n' >"$INTEG_TMP/$fx.yaml"
  integ_start_bottleneckd DPORT "$fx" "$BIN" --config.file="$INTEG_TMP/$fx.yaml" \
    --path.procfs="$FX/proc" --path.sysfs="$FX/sys" --path.ethtool="$FX/ethtool"
  JOBS+=("$fx"); TARGETS+=("127.0.0.1:$DPORT")
done

# A live-changing host: the lab's seed sweep played into a tree from second 30
# (the end of the 500 Mbit/s step, verdict none, then the CPU-bound 550 Mbit/s
# one from second 40, losing at the socket).
REC="$INTEG_TMP/seed-sweep"
# Its first 80 s only (the first two runs): a third of the time to simulate.
"$INTEG_PYTHON" - "$SRC/lab" "$REC" <<'PY' || integ_die "simulating the seed sweep failed"
import sys
sys.path.insert(0, sys.argv[1])
import scenarios
from recorder import record
s = scenarios.seed_sweep()
s.duration = 80.0
s.loads = [l for l in s.loads if l.end <= s.duration]
# Without the simulated soaker: its CPU time is in the recording's /proc/stat,
# and only a replay (which reads the soaker file) can take it out again.
s.machine.soaker = False
record(s, sys.argv[2])
PY
TREE="$INTEG_TMP/replay-tree"
integ_spawn feeder_pid "$INTEG_TMP/feeder.log" "$INTEG_PYTHON" "$SRC/tests/integration/recording_feeder.py" "$REC" "$TREE" 30
integ_wait_for 10 "the feeder's first sample" test -e "$TREE/.ready" || integ_die "feeder: $(cat "$INTEG_TMP/feeder.log")"
printf 'interval: 1s\ncollectors:\n  threads:\n    targets:\n      - name: udpecho\n' >"$INTEG_TMP/replay.yaml"
integ_start_bottleneckd DPORT replay "$BIN" --config.file="$INTEG_TMP/replay.yaml" \
  --path.procfs="$TREE/proc" --path.sysfs="$TREE/sys" --path.ethtool="$TREE/ethtool"
JOBS+=(replay); TARGETS+=("127.0.0.1:$DPORT")
REPLAY_TARGET="127.0.0.1:$DPORT"

# This host: a capture on lo, a target thread, the soaker during a run.
LOAD="$INTEG_TMP/bnd-dash-load"
cp "$(command -v sleep)" "$LOAD" || integ_die "cannot copy sleep"
printf 'interval: 1s\ncollectors:\n  threads:\n    targets:\n      - name: bnd-dash-load\nverdict:\n  packet_path_interfaces: [lo]\n' \
  >"$INTEG_TMP/live.yaml"
integ_start_bottleneckd DPORT live "$BIN" --config.file="$INTEG_TMP/live.yaml" --capture.interface=lo \
  --capture.filter="udp port 9"
JOBS+=(live); TARGETS+=("127.0.0.1:$DPORT")
SOCK="$INTEG_TMP/state-live/control.sock"

# --- Prometheus with the recording rules --------------------------------------------
PROM_CONFIG="$INTEG_TMP/prometheus.yml"
{
  printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n'
  printf 'rule_files:\n  - %s\n  - %s\n' "$RULES" "$SRC/etc/prometheus/bottleneckd-alerts.yml"
  printf 'scrape_configs:\n'
  for i in "${!JOBS[@]}"; do
    printf '  - job_name: %s\n    static_configs:\n      - targets: ["%s"]\n' "${JOBS[$i]}" "${TARGETS[$i]}"
  done
} >"$PROM_CONFIG"
promtool check config "$PROM_CONFIG" >/dev/null 2>&1 || integ_die "promtool rejects $PROM_CONFIG: $(promtool check config "$PROM_CONFIG" 2>&1)"
integ_start_prometheus "$PROM_CONFIG"
START="$(date +%s)"

# The run on this host: the soaker starts with it, the target thread exists.
integ_spawn run_pid "$INTEG_TMP/run.log" "$BIN" run --control.socket "$SOCK" --name dashboards -- "$LOAD" 15
# Traffic for the capture's filter: five datagrams a second to the discard
# port, never echoed: the application rung's echo losses.
integ_spawn udp_pid "$INTEG_TMP/udp.log" "$INTEG_PYTHON" -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    s.sendto(b"bottleneckd dashboards_test", ("127.0.0.1", 9))
    time.sleep(0.2)
'

ready() {
  local line
  line="$(integ_query 'count(count_over_time(up[1m]) >= 15)' 2>/dev/null)" || return 1
  [ -n "$line" ] && integ_num "$(integ_value "$line")" == "${#JOBS[@]}" || return 1
  [ -n "$(integ_query 'count_over_time(bottleneckd_cpu_hidden_ratio{job="live"}[1m])' 2>/dev/null)" ] || return 1
  [ -n "$(integ_query 'count_over_time(bottleneckd_thread_cpu_ratio{job="live"}[1m])' 2>/dev/null)" ] || return 1
  [ -n "$(integ_query 'instance:bottleneckd_verdict_bound:avg_over_time1h' 2>/dev/null)" ]
}
integ_log "waiting (up to 45 s) for 15 scrapes of each of the ${#JOBS[@]} daemons, the run's soaker and thread"
integ_wait_for 45 "15 scrapes of every daemon, soaker and thread series of the run" ready ||
  integ_die "not ready after 45 s: $(integ_query 'count_over_time(up[1m])' | tr '\n' ';') run: $(tail -n 3 "$INTEG_TMP/run.log")"
END="$(date +%s)"

# --- every panel's every query ------------------------------------------------------
integ_log "querying every target of both dashboards over [$START, $END]"
"$INTEG_PYTHON" "$DASH" query "$PROM_URL" "$START" "$END" "$HOST_JSON" "$FLEET_JSON" >"$INTEG_TMP/queries.json" ||
  integ_die "dashboards.py query failed"
names="$(for i in "${!JOBS[@]}"; do printf '%s=%s\n' "${TARGETS[$i]}" "${JOBS[$i]}"; done)"
while IFS= read -r line; do
  case "$line" in
    PASS\ *) integ_pass "${line#PASS }" ;;
    FAIL\ *) integ_fail "${line#FAIL }" ;;
    *) echo "$line" ;;
  esac
done < <("$INTEG_PYTHON" - "$INTEG_TMP/queries.json" "$names" <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1]))
names = dict(l.split("=", 1) for l in sys.argv[2].splitlines())
# The run's own series (the soaker only runs during one) and the capture's:
# the live host fills them; every other host panel must be filled by the
# live-changing recording.
RUN_ONLY = re.compile(r'source="soaker"|bottleneckd_cpu_hidden_ratio|bottleneckd_capture_')
targets = {}
for r in report:
    key = (r["dashboard"], r["panel"], r["ref"])
    t = targets.setdefault(key, {"expr": r["expr"], "filled": [], "empty": []})
    who = names.get(r["instance"], r["instance"])
    (t["filled"] if r["numbers"] > 0 else t["empty"]).append(who)
for (dash, panel, ref), t in sorted(targets.items()):
    what = "%s: panel '%s' target %s" % (dash, panel, ref)
    need = []
    if dash == "bottleneckd-host.json":
        need = ["live"] if RUN_ONLY.search(t["expr"]) else ["replay"]
    missing = [n for n in need if n not in t["filled"]]
    if not t["filled"]:
        print("FAIL %s returns nothing on any instance: %s" % (what, t["expr"]))
    elif missing:
        print("FAIL %s returns nothing for %s: %s" % (what, ",".join(missing), t["expr"]))
    else:
        print("PASS %s: series on %s%s" % (what, ",".join(t["filled"]),
                                            " (none on %s)" % ",".join(t["empty"]) if t["empty"] else ""))
PY
)

# The live-changing host moved: its verdict left none within the span, when
# the recording's CPU-bound 550 Mbit/s step began (accounting at 81 % and no
# soaker: undetermined, the seed's own question; lab/scenarios.py).
line="$(integ_query 'changes(bottleneckd_verdict{job="replay",bound="none"}[5m])')"
if [ -n "$line" ] && integ_num "$(integ_value "$line")" '>=' 1; then
  integ_pass "the replayed seed sweep's verdict changed during the span: $(integ_query 'bottleneckd_verdict_info{job="replay"}' | sed 's/\t.*//') ('Verdict over time' shows it)"
else
  integ_fail "the replayed seed sweep's verdict never changed: ${line:-nothing}"
fi

# Numbers, not only series: the fleet's downtrained links (pcie-box has one,
# tests/fixtures/pcie-box/README.md; seed-box's PCI and PCI-X have none) and
# the first losing rung of the replayed sweep, whose CPU-bound step loses at
# the socket (UDP RcvbufErrors) with no NIC or backlog drops.
for want in "pcie-box >= 1" "seed-box == 0" "large-host == 0"; do
  read -r job op n <<<"$want"
  line="$(integ_query "instance:bottleneckd_pci_links_downtrained:count{job=\"$job\"}")"
  if [ -n "$line" ] && integ_num "$(integ_value "$line")" "$op" "$n"; then
    integ_pass "instance:bottleneckd_pci_links_downtrained:count{job=\"$job\"} = $(integ_value "$line") ($op $n)"
  else
    integ_fail "instance:bottleneckd_pci_links_downtrained:count{job=\"$job\"}: want $op $n, got ${line:-nothing}"
  fi
done
rung_expr="$("$INTEG_PYTHON" - "$HOST_JSON" "$REPLAY_TARGET" "$((END - START))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
expr = [p for p in d["panels"] if p["title"] == "First losing rung"][0]["targets"][0]["expr"]
print(expr.replace("$instance", sys.argv[2].replace(".", "\\\\.")).replace("$__range", sys.argv[3] + "s"))
PY
)"
line="$(integ_query "$rung_expr")"
if [ -n "$line" ] && integ_num "$(integ_value "$line")" == 3; then
  integ_pass "First losing rung of the replayed sweep: 3 (socket)"
else
  integ_fail "First losing rung of the replayed sweep: want 3 (socket), got ${line:-nothing} from $rung_expr"
fi

# The CPU time budget panel's stacked parts (its targets but the overlap
# line) add up to the whole window for every CPU of the replayed sweep: each
# target's query, the instance and CPU substituted, summed by cpu.
budget_expr="$("$INTEG_PYTHON" - "$HOST_JSON" "$REPLAY_TARGET" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
panel = [q for p in d["panels"] for q in [p] + p.get("panels", []) if q["title"] == "CPU $cpu: time budget by part"][0]
parts = [t["expr"] for t in panel["targets"] if "overlap" not in t["expr"]]
inst = sys.argv[2].replace(".", "\\\\.")
print(" + ".join("sum by (cpu) (%s)" % e.replace("$instance", inst).replace("$cpu", ".*") for e in parts))
PY
)"
worst="$(integ_query "max(abs(($budget_expr) - 1))")"
parts_n="$(grep -o 'part=' <<<"$budget_expr" | wc -l)"
if [ "$parts_n" -eq 8 ] && [ -n "$worst" ] && integ_num "$(integ_value "$worst")" '<' 0.000001; then
  integ_pass "CPU time budget panel: its $parts_n stacked parts sum to 100 % on every CPU of the replayed sweep"
else
  integ_fail "CPU time budget panel: want 8 parts summing to 1 on every CPU, got $parts_n parts, largest miss ${worst:-nothing} from $budget_expr"
fi

# The CPU variable: the busiest four CPUs over the span (a 128-CPU host draws
# four panels per CPU row, not 128), here the live host's CPUs, at most four,
# each one the host has.
cpus="$("$INTEG_PYTHON" - "$DASH" "$HOST_JSON" "$PROM_URL" "$START" "$END" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("dashboards", sys.argv[1])
dash = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dash)
d = json.load(open(sys.argv[2]))
v = [x for x in d["templating"]["list"] if x["name"] == "cpu"][0]
span = int(sys.argv[5]) - int(sys.argv[4])
q = dash.substitute(v["query"]["query"], {"instance": ".*"}, span).replace('instance=~".*"', 'job="live"')
print(" ".join(dash.label_values(sys.argv[3], q, int(sys.argv[4]), int(sys.argv[5]), v.get("regex", ""))))
PY
)"
ncpu="$(nproc --all)"
want=$((ncpu < 4 ? ncpu : 4))
bad=""
for c in $cpus; do [ "$c" -lt "$ncpu" ] 2>/dev/null || bad+=" $c"; done
if [ "$(wc -w <<<"$cpus")" -eq "$want" ] && [ -z "$bad" ]; then
  integ_pass "the CPU variable lists the busiest $want of the live host's $ncpu CPUs: $cpus"
else
  integ_fail "the CPU variable: want the busiest $want of $ncpu CPUs, got '${cpus}'${bad:+ (not CPUs here:$bad)}"
fi

# Prometheus evaluated every recording rule without an error.
if grep -E 'level=(warn|error)' "$PROM_LOG" | grep -qi 'rule'; then
  integ_fail "prometheus logged rule problems: $(grep -E 'level=(warn|error)' "$PROM_LOG" | grep -i -m 3 rule)"
else
  integ_pass "prometheus logged no rule evaluation warnings or errors"
fi
for job in "${JOBS[@]}"; do
  if grep -q 'level=error' "$INTEG_TMP/bottleneckd-$job.log"; then
    integ_fail "bottleneckd ($job) logged errors: $(grep -m 3 'level=error' "$INTEG_TMP/bottleneckd-$job.log")"
  fi
done
integ_finish
