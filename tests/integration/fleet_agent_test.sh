#!/usr/bin/env bash
# The path from one site to a fleet (docs/fleet.md "From one site to a
# fleet"), with real processes on loopback only: two sites, each a Prometheus
# in agent mode (external_labels site="a" / "b") scraping its hosts every
# second and sending them with remote_write to a central Prometheus (the
# remote-write receiver, with the shipped recording rules) and to
# VictoriaMetrics; beside them a direct Prometheus scraping every host. The
# hosts: three simulated ones serving a real daemon's scrape with the
# verdict families of tests/integration/fleet_data.py's "three" story, shrunk
# to 36 s (tests/integration/fleet_hosts.py), and a real daemon on a fixture
# tree. Checked: the fleet report gives the same answer on the central
# Prometheus and on VictoriaMetrics as on the direct one, and that answer is
# the injected truth; a site's selector keeps to the site; the recording
# rules run where the data is; the fleet dashboard's panels show the same
# instances on the central store as on the direct one.
#
# usage: fleet_agent_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=fleet_agent_test
BIN=${1:?usage: fleet_agent_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: fleet_agent_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 240 "$@"
integ_init
integ_require_tools prometheus victoria-metrics curl "$INTEG_PYTHON" timeout
FIX="$SRC/tests/fixtures/seed-box"

# A real daemon's scrape: the template the simulated hosts serve.
"$BIN" --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.ethtool="$FIX/ethtool" --once \
  >"$INTEG_TMP/template.prom" 2>"$INTEG_TMP/once.log" || integ_die "bottleneckd --once: $(tail -3 "$INTEG_TMP/once.log")"
START=$(( $(date +%s) + 8 ))
"$INTEG_PYTHON" "$SRC/tests/integration/fleet_hosts.py" --template "$INTEG_TMP/template.prom" --start "$START" \
  --scale 0.1 --seconds 200 --port-file "$INTEG_TMP/hosts.port" --truth "$INTEG_TMP/truth.json" \
  >"$INTEG_TMP/hosts.log" 2>&1 &
INTEG_PIDS+=("$!")
for _ in $(seq 100); do [ -s "$INTEG_TMP/hosts.port" ] && break; sleep 0.1; done
HOSTS_PORT=$(cat "$INTEG_TMP/hosts.port") || integ_die "fleet_hosts.py did not start: $(cat "$INTEG_TMP/hosts.log")"
integ_start_bottleneckd REAL_PORT real "$BIN" --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" \
  --path.ethtool="$FIX/ethtool"

# scrape_config HOST...: a job "bottleneckd" with one target per host
# ("gen", "box", "bystander": simulated; "real": the daemon), each with the
# instance label it has in the truth.
scrape_config() {
  printf 'scrape_configs:\n  - job_name: bottleneckd\n    static_configs:\n'
  local h
  for h in "$@"; do
    if [ "$h" = real ]; then
      printf '      - targets: ["127.0.0.1:%s"]\n        labels: {instance: "real:9858"}\n' "$REAL_PORT"
    else
      printf '      - targets: ["127.0.0.1:%s"]\n        labels: {instance: "%s:9858", __metrics_path__: "/%s/metrics"}\n' \
        "$HOSTS_PORT" "$h" "$h"
    fi
  done
}

integ_log "central Prometheus (remote-write receiver, recording rules) and VictoriaMetrics"
# Absolute: Prometheus reads rule_files relative to its config file's folder.
RULES="$(cd "$SRC" && pwd)/etc/prometheus/bottleneckd-recording.yml"
# The shipped example (etc/prometheus/fleet-central.yml) with the rules of
# this tree and a rule evaluation every second.
SRC_ABS=$(cd "$SRC" && pwd)
sed -e "s|/usr/share/bottleneckd/prometheus/|$SRC_ABS/etc/prometheus/|" -e 's|evaluation_interval: 15s|evaluation_interval: 1s|' \
  "$SRC/etc/prometheus/fleet-central.yml" >"$INTEG_TMP/central.yml"
if out=$(promtool check config "$INTEG_TMP/central.yml" 2>&1) &&
  out2=$(promtool check config --agent "$SRC/etc/prometheus/fleet-site-agent.yml" 2>&1); then
  integ_pass "promtool check config: the shipped fleet-central.yml and (--agent) fleet-site-agent.yml"
else
  integ_fail "promtool check config of the shipped fleet examples: $out ${out2:-}"
fi
integ_start_prometheus "$INTEG_TMP/central.yml" --web.enable-remote-write-receiver
CENTRAL=$PROM_URL
VM_PORT=$(integ_free_port)
integ_spawn vm_pid "$INTEG_TMP/vm.log" victoria-metrics -storageDataPath="$INTEG_TMP/vm" \
  -httpListenAddr="127.0.0.1:$VM_PORT" -search.latencyOffset=1s
VM="http://127.0.0.1:$VM_PORT"
for _ in $(seq 300); do curl -sf -m 2 "$VM/health" >/dev/null 2>&1 && break; sleep 0.1; done

integ_log "two sites' agents and a direct Prometheus"
# start_agent SITE HOST...: a Prometheus in agent mode for the site's hosts.
start_agent() {
  local site="$1" port pid i; shift
  port=$(integ_free_port)
  { printf 'global:\n  scrape_interval: 1s\n  external_labels: {site: "%s"}\n' "$site"
    scrape_config "$@"
    printf 'remote_write:\n  - url: "%s/api/v1/write"\n    queue_config: {batch_send_deadline: 1s}\n' "$CENTRAL"
    printf '  - url: "%s/api/v1/write"\n    queue_config: {batch_send_deadline: 1s}\n' "$VM"
  } >"$INTEG_TMP/agent-$site.yml"
  integ_spawn pid "$INTEG_TMP/agent-$site.log" prometheus --enable-feature=agent \
    --config.file="$INTEG_TMP/agent-$site.yml" --storage.agent.path="$INTEG_TMP/agent-$site" \
    --web.listen-address="127.0.0.1:$port"
  for ((i = 0; i < 300; i++)); do
    curl -sf -m 2 "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || integ_die "agent $site exited: $(tail -5 "$INTEG_TMP/agent-$site.log")"
    sleep 0.1
  done
  printf -v "AGENT_${site^^}" '%s' "http://127.0.0.1:$port"
}
start_agent a gen real
start_agent b box bystander
{ printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ["%s"]\n' "$RULES"
  scrape_config gen real box bystander; } >"$INTEG_TMP/direct.yml"
integ_start_prometheus "$INTEG_TMP/direct.yml"
DIRECT=$PROM_URL

# The story ends 30 s after START; remote_write batches go every second.
END=$(( START + 30 ))
while [ "$(date +%s)" -lt $((END + 6)) ]; do sleep 1; done
curl -sf -m 30 "$VM/internal/force_flush" >/dev/null || integ_fail "VictoriaMetrics force_flush failed"

# report NAME URL ARGS...: the fleet report as JSON into $INTEG_TMP/NAME.json.
report() {
  local name="$1" url="$2"; shift 2
  timeout 60 "$BIN" --report --prometheus.url "$url" --format json "$@" >"$INTEG_TMP/$name.json" \
    2>"$INTEG_TMP/$name.err" || integ_fail "$name: report failed: $(cat "$INTEG_TMP/$name.err")"
}
for store in direct central vm; do
  url=$DIRECT; [ $store = central ] && url=$CENTRAL; [ $store = vm ] && url=$VM
  report "$store-span" "$url" --since 2m
  report "$store-run" "$url" --run echo --since 10m
done
report central-site-b "$CENTRAL" --since 2m --selector '{site="b"}'

"$INTEG_PYTHON" - "$INTEG_TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
truth = json.load(open(os.path.join(tmp, "truth.json")))
fail = 0
def check(ok, what):
    global fail
    print(("PASS: " if ok else "FAIL: ") + what)
    fail += not ok
def load(name):
    try:
        return json.load(open(os.path.join(tmp, name + ".json")))
    except (OSError, ValueError) as e:
        check(False, "%s: no report (%s)" % (name, e))
        return None
def answer(r):
    return (r["limited_first"], r["limited_longest"],
            sorted((i["instance"], i["bound"], i["resource"], i.get("in_run")) for i in r["instances"]))
for mode in ("span", "run"):
    reports = {s: load("%s-%s" % (s, mode)) for s in ("direct", "central", "vm")}
    if None in reports.values():
        continue
    d = reports["direct"]
    check(d["limited_first"] == "gen:9858" and d["limited_longest"] == "gen:9858",
          "direct %s: limited first %s, longest %s (truth: gen:9858 both)" % (mode, d["limited_first"], d["limited_longest"]))
    inst = {i["instance"]: i for i in d["instances"]}
    check(set(inst) == {"gen:9858", "box:9858", "bystander:9858", "real:9858"}, "direct %s: instances %s" % (mode, sorted(inst)))
    for host, want in (("gen:9858", ("cpu", "cpu0")), ("box:9858", ("interrupt", "cpu1")), ("bystander:9858", ("none", ""))):
        got = (inst.get(host, {}).get("bound"), inst.get(host, {}).get("resource"))
        check(got == want, "direct %s: %s %s (truth %s)" % (mode, host, got, want))
    if mode == "run":
        check(sorted(h for h, i in inst.items() if i["in_run"]) == ["box:9858", "gen:9858"],
              "direct run: hosts in run echo %s" % sorted(h for h, i in inst.items() if i["in_run"]))
        t = truth["run"]
        check(abs(d["start"] - t["start"]) <= 4 and abs(d["end"] - t["end"]) <= 5,
              "direct run: span %+.0f s .. %+.0f s of the truth's" % (d["start"] - t["start"], d["end"] - t["end"]))
    for store in ("central", "vm"):
        same = answer(reports[store]) == answer(d)
        check(same, "%s %s: the same answer as the direct Prometheus%s" % (
            store, mode, "" if same else ": %s vs %s" % (answer(reports[store]), answer(d))))
b = load("central-site-b")
if b:
    check(sorted(i["instance"] for i in b["instances"]) == ["box:9858", "bystander:9858"],
          "central {site=\"b\"}: only site b's hosts %s" % sorted(i["instance"] for i in b["instances"]))
sys.exit(1 if fail else 0)
PY
[ $? -eq 0 ] && integ_pass "the fleet report over the agent path: every answer matches" ||
  integ_fail "the fleet report over the agent path: see above"

# The recording rules run on the central store (an agent evaluates none),
# one series per host with its site.
PROM_URL=$CENTRAL
rule_series=$(integ_query 'instance:bottleneckd_verdict_bound:avg_over_time1h' | sort)
if [ "$(wc -l <<<"$rule_series")" -eq 4 ] && grep -q '^instance=gen:9858,job=bottleneckd' <<<"$rule_series"; then
  integ_pass "central: the recording rules give each of the 4 hosts its series"
else
  integ_fail "central: instance:bottleneckd_verdict_bound:avg_over_time1h: $rule_series"
fi

# The fleet dashboard on the central store shows what it shows on the direct one.
now=$(date +%s)
for store in direct central; do
  url=$DIRECT; [ $store = central ] && url=$CENTRAL
  "$INTEG_PYTHON" "$SRC/tests/integration/dashboards.py" query "$url" $((START - 5)) "$now" \
    "$SRC/etc/grafana/bottleneckd-fleet.json" >"$INTEG_TMP/dash-$store.json" 2>"$INTEG_TMP/dash-$store.err" ||
    integ_fail "dashboards.py query on $store: $(tail -3 "$INTEG_TMP/dash-$store.err")"
done
if "$INTEG_PYTHON" - "$INTEG_TMP/dash-direct.json" "$INTEG_TMP/dash-central.json" <<'PY'
import json, sys
# Per panel target: the instances offered, how many series it drew and
# whether they held numbers; the number of points differs by a scrape or two
# between the stores (the agents and the direct server scrape at their own
# offsets), so it is not compared.
key = lambda r: [(t["panel"], t["ref"], t["instance"], sorted(t["instances"]), t["series"], t["numbers"] > 0) for t in r]
a, b = (key(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for x, y in zip(a, b):
        if x != y:
            print("differs: direct %s, central %s" % (x, y))
    sys.exit(1)
print("panels: %d" % len(a))
PY
then
  integ_pass "the fleet dashboard's panels show the same instances on the central store as on the direct one"
else
  integ_fail "the fleet dashboard differs between the central store and the direct one"
fi

# What remote_write sent (an agent answers no queries: its own /metrics),
# for docs/performance.md: compressed bytes per host per minute.
for site in A B; do
  var="AGENT_$site"
  sent=$(curl -sf -m 5 "${!var}/metrics" | awk '/^prometheus_remote_storage_bytes_total/ { s += $2 } END { print s + 0 }')
  integ_log "FIGURE: agent $site: $sent bytes sent to 2 remotes for 2 hosts over $(( $(date +%s) - START + 8 )) s"
done
integ_finish
