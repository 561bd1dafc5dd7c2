#!/usr/bin/env bash
# The fleet report (bottleneckd --report --prometheus.url, docs/fleet.md)
# against real stores and a misbehaving one, on loopback only:
#  1. bad input: a store that is unreachable, answers 500 or an API error,
#     is slower than --prometheus.timeout, answers something not JSON, has
#     nothing for the selector or the run, needs a bearer token, answers
#     partially, serves HTTPS with a certificate of an unknown CA (and, with
#     --prometheus.ca-file, is read): one clear line each, the exit code
#     bottleneckd(8) gives;
#  2. three simulated hosts (tests/integration/fleet_data.py: a generator
#     bound by cpu0, a box by its interrupts for 40 s, a bystander never, a
#     run "echo" on the first two) backfilled into the real Prometheus with
#     `promtool tsdb create-blocks-from openmetrics` and imported into
#     VictoriaMetrics: the report's answers checked against the injected
#     truth, on both stores, which must agree;
#  3. a live daemon joining a run (`bottleneckd run --join/--leave`) scraped
#     by Prometheus: bottleneckd_run_active while the run is active, gone
#     after, and the report finds the run and the host in it.
#
# usage: fleet_report_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=fleet_report_test
BIN=${1:?usage: fleet_report_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: fleet_report_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 240 "$@"
integ_init
integ_require_tools prometheus promtool victoria-metrics curl "$INTEG_PYTHON" timeout

# expect_fail NAME CODE PATTERN ARGS...: the report exits CODE with one line
# on stderr that matches PATTERN, and nothing on stdout.
expect_fail() {
  local name="$1" code="$2" pattern="$3"; shift 3
  local out="$INTEG_TMP/out" err="$INTEG_TMP/err" rc
  timeout 60 "$BIN" --report "$@" >"$out" 2>"$err"
  rc=$?
  if [ "$rc" -eq "$code" ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -qE -e "$pattern" "$err" && [ ! -s "$out" ]; then
    integ_pass "$name: exit $rc, $(cat "$err")"
  else
    integ_fail "$name: exit $rc (want $code), stderr $(wc -l <"$err") line(s): $(head -c 400 "$err"), stdout $(wc -c <"$out") bytes"
  fi
}

integ_log "a misbehaving store"
"$INTEG_PYTHON" "$SRC/tests/integration/fleet_fake_store.py" --port-file "$INTEG_TMP/fake.port" --seconds 200 \
  >"$INTEG_TMP/fake.log" 2>&1 &
INTEG_PIDS+=("$!")
for _ in $(seq 100); do [ -s "$INTEG_TMP/fake.port" ] && break; sleep 0.1; done
FAKE="http://127.0.0.1:$(cat "$INTEG_TMP/fake.port")"
DEAD="http://127.0.0.1:$(integ_free_port)"
expect_fail "unreachable" 1 "cannot reach $DEAD/api/v1/query_range: .*(refused|Failed to connect)" --prometheus.url "$DEAD"
expect_fail "HTTP 500" 1 "answered HTTP 500: internal error: the storage is on fire" --prometheus.url "$FAKE/error500"
expect_fail "API error" 1 "answered HTTP 422 \(execution\): query processing would load too many samples" \
  --prometheus.url "$FAKE/apierror"
expect_fail "slow store" 1 "did not answer within 1s \(--prometheus.timeout\)" --prometheus.url "$FAKE/slow" \
  --prometheus.timeout 1s
expect_fail "not JSON" 1 "the answer is not JSON \(is the URL a Prometheus query API\?\)" --prometheus.url "$FAKE/garbage"
expect_fail "selector matching nothing" 3 "no bottleneckd_verdict series match \{job=\"nope\"\}" \
  --prometheus.url "$FAKE/empty" --selector '{job="nope"}'
expect_fail "unknown run" 3 "no host matching \{\} had run 'nobody-knows' active in the last 7d" \
  --prometheus.url "$FAKE/empty" --run nobody-knows
expect_fail "bad selector" 2 "--selector must be label matchers in braces" --prometheus.url "$FAKE/empty" \
  --selector 'job="x"'
expect_fail "bad URL" 2 "--prometheus.url must be an http:// or https:// URL" --prometheus.url "ftp://x"
expect_fail "no token" 1 "answered HTTP 401: unauthorized" --prometheus.url "$FAKE/auth"
printf 's3cret\n' >"$INTEG_TMP/token"
if out=$("$BIN" --report --prometheus.url "$FAKE/auth" --prometheus.bearer-token-file "$INTEG_TMP/token" 2>&1) &&
  grep -q "limited first: a:9858 (cpu, cpu0)" <<<"$out"; then
  integ_pass "bearer token file: the store answered ($(grep 'limited first' <<<"$out"))"
else
  integ_fail "bearer token file: $out"
fi
expect_fail "missing token file" 2 "--prometheus.bearer-token-file: cannot read" --prometheus.url "$FAKE/auth" \
  --prometheus.bearer-token-file "$INTEG_TMP/none"
if "$BIN" --report --prometheus.url "$FAKE/partial" >"$INTEG_TMP/out" 2>"$INTEG_TMP/err" &&
  grep -q "warning: the store's answer may be partial: remote read of site-b timed out" "$INTEG_TMP/err" &&
  [ "$(wc -l <"$INTEG_TMP/err")" -eq 1 ] && grep -q "^warning: the store's answer may be partial" "$INTEG_TMP/out"; then
  integ_pass "partial answer: exit 0, one warning line on stderr and in the report"
else
  integ_fail "partial answer: $(cat "$INTEG_TMP/err") / $(head -5 "$INTEG_TMP/out")"
fi

integ_log "HTTPS: a store with a certificate of its own CA"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$INTEG_TMP/tls.key" -out "$INTEG_TMP/tls.crt" >"$INTEG_TMP/openssl.log" 2>&1 ||
  integ_die "openssl could not make a test certificate: $(tail -2 "$INTEG_TMP/openssl.log")"
"$INTEG_PYTHON" "$SRC/tests/integration/fleet_fake_store.py" --port-file "$INTEG_TMP/tls.port" --seconds 100 \
  --tls-cert "$INTEG_TMP/tls.crt" --tls-key "$INTEG_TMP/tls.key" >"$INTEG_TMP/tls-store.log" 2>&1 &
INTEG_PIDS+=("$!")
for _ in $(seq 100); do [ -s "$INTEG_TMP/tls.port" ] && break; sleep 0.1; done
TLS="https://127.0.0.1:$(cat "$INTEG_TMP/tls.port")"
expect_fail "HTTPS, an unknown CA" 1 "cannot reach $TLS/partial/api/v1/query_range: .*certificate" \
  --prometheus.url "$TLS/partial"
if out=$("$BIN" --report --prometheus.url "$TLS/auth" --prometheus.ca-file "$INTEG_TMP/tls.crt" \
  --prometheus.bearer-token-file "$INTEG_TMP/token" 2>&1) && grep -q "limited first: a:9858 (cpu, cpu0)" <<<"$out"; then
  integ_pass "HTTPS with --prometheus.ca-file and the bearer token: the store answered"
else
  integ_fail "HTTPS with --prometheus.ca-file: $out"
fi
expect_fail "missing CA file" 2 "--prometheus.ca-file: cannot read" --prometheus.url "$TLS/partial" \
  --prometheus.ca-file "$INTEG_TMP/no-such-ca.pem"

integ_log "three simulated hosts in Prometheus (backfilled) and VictoriaMetrics (imported)"
START=$(( ($(date +%s) - 900) / 60 * 60 ))
"$INTEG_PYTHON" "$SRC/tests/integration/fleet_data.py" --scenario three --start "$START" \
  --out "$INTEG_TMP/three.om" --truth "$INTEG_TMP/truth.json" || integ_die "fleet_data.py failed"
"$INTEG_PYTHON" "$SRC/tests/integration/fleet_data.py" --scenario three --start "$START" --format vm \
  --out "$INTEG_TMP/three.prom" --truth "$INTEG_TMP/truth-vm.json" || integ_die "fleet_data.py failed"
promtool tsdb create-blocks-from openmetrics "$INTEG_TMP/three.om" "$INTEG_TMP/blocks" >"$INTEG_TMP/backfill.log" 2>&1 ||
  integ_die "promtool tsdb create-blocks-from openmetrics: $(tail -3 "$INTEG_TMP/backfill.log")"
printf 'global:\n  scrape_interval: 15s\n' >"$INTEG_TMP/empty.yml"
INTEG_PROM_BLOCKS="$INTEG_TMP/blocks" integ_start_prometheus "$INTEG_TMP/empty.yml"
PROM_BACKFILLED=$PROM_URL
VM_PORT=$(integ_free_port)
integ_spawn vm_pid "$INTEG_TMP/vm.log" victoria-metrics -storageDataPath="$INTEG_TMP/vm" \
  -httpListenAddr="127.0.0.1:$VM_PORT" -retentionPeriod=1y -search.latencyOffset=0s
VM="http://127.0.0.1:$VM_PORT"
for _ in $(seq 300); do curl -sf -m 2 "$VM/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf -m 30 --data-binary "@$INTEG_TMP/three.prom" "$VM/api/v1/import/prometheus" ||
  integ_die "VictoriaMetrics import failed: $(tail -3 "$INTEG_TMP/vm.log")"
curl -sf -m 30 "$VM/internal/force_flush" >/dev/null || integ_die "VictoriaMetrics force_flush failed"

# check_three NAME URL: the report over the last hour and over the run,
# against truth.json.
check_three() {
  local name="$1" url="$2"
  for mode in span run; do
    local args=(--since 1h)
    [ "$mode" = run ] && args=(--run echo --since 1h)
    if ! timeout 60 "$BIN" --report --prometheus.url "$url" "${args[@]}" --format json \
      >"$INTEG_TMP/$name-$mode.json" 2>"$INTEG_TMP/$name-$mode.err"; then
      integ_fail "$name $mode: report failed: $(cat "$INTEG_TMP/$name-$mode.err")"
      continue
    fi
    "$INTEG_PYTHON" - "$INTEG_TMP/truth.json" "$INTEG_TMP/$name-$mode.json" "$name $mode" <<'PY'
import json, sys
truth, got, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
fail = 0
def check(ok, what):
    global fail
    print(("PASS: " if ok else "FAIL: ") + name + ": " + what)
    fail += not ok
step = got["step_seconds"]
inst = {i["instance"]: i for i in got["instances"]}
check(set(inst) == set(truth["hosts"]), "instances %s" % sorted(inst))
check(got["limited_first"] == "gen:9858", "limited first: %s (truth: gen:9858, bound from +120 s)" % got["limited_first"])
check(got["limited_longest"] == "gen:9858", "limited longest: %s (truth: gen:9858)" % got["limited_longest"])
for host, stretches in truth["hosts"].items():
    i = inst.get(host)
    if i is None:
        continue
    want = stretches[0]["bound"] if stretches else "none"
    check(i["bound"] == want, "%s bound %s (truth %s)" % (host, i["bound"], want))
    if not stretches:
        check(i["first_bound"] is None and i["worst"] is None, "%s never bound" % host)
        continue
    s = stretches[0]
    check(i["resource"] == s["resource"], "%s resource %s (truth %s)" % (host, i["resource"], s["resource"]))
    check(abs(i["first_bound"] - s["start"]) <= step + 1,
          "%s first bound at %+.0f s of the truth's start (one step is %g s)" % (host, i["first_bound"] - s["start"], step))
    length = i["worst"]["end"] - i["worst"]["start"]
    check(abs(length - (s["end"] - s["start"])) <= 2 * step + 5,
          "%s worst stretch %.0f s (truth %d s)" % (host, length, s["end"] - s["start"]))
    peak = i["worst"]["evidence_peak"]
    check(peak is not None and abs(peak - {"cpu": 0.99, "interrupt": 0.7, "bus": 0.97}[s["bound"]]) < 1e-9,
          "%s evidence peak %s" % (host, peak))
if "run" in name:
    run = truth["run"]
    check(abs(got["start"] - run["start"]) <= step + 1 and abs(got["end"] - run["end"]) <= step + 6,
          "run span %+.0f s .. %+.0f s of the truth's" % (got["start"] - run["start"], got["end"] - run["end"]))
    check(sorted(h for h, i in inst.items() if i["in_run"]) == sorted(run["hosts"]),
          "hosts in the run: %s" % sorted(h for h, i in inst.items() if i["in_run"]))
    share = inst["gen:9858"]["bound_share"]
    want = (run["end"] - 120 - truth["start"]) / (run["end"] - run["start"])
    check(abs(share - want) < 0.05, "gen bound %.3f of the run (truth %.3f)" % (share, want))
sys.exit(1 if fail else 0)
PY
    if [ $? -eq 0 ]; then integ_pass "$name $mode: every answer matches the truth"; else integ_fail "$name $mode: see above"; fi
  done
}
check_three prometheus "$PROM_BACKFILLED"
check_three victoriametrics "$VM"
# Both stores, one answer.
for mode in span run; do
  if "$INTEG_PYTHON" - "$INTEG_TMP/prometheus-$mode.json" "$INTEG_TMP/victoriametrics-$mode.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(i["instance"], i["bound"], i["resource"], i.get("in_run")) for i in r["instances"]]
sys.exit(0 if (a["limited_first"], a["limited_longest"], key(a)) == (b["limited_first"], b["limited_longest"], key(b)) else 1)
PY
  then integ_pass "Prometheus and VictoriaMetrics give the same $mode answer"
  else integ_fail "Prometheus and VictoriaMetrics differ on the $mode answer"; fi
done
if timeout 60 "$BIN" --report --prometheus.url "$PROM_BACKFILLED" --run echo --since 1h >"$INTEG_TMP/three.txt" 2>&1 &&
  grep -q "^limited first: gen:9858 (cpu, cpu0) at +" "$INTEG_TMP/three.txt"; then
  integ_pass "text report: $(grep '^limited' "$INTEG_TMP/three.txt" | tr '\n' ';')"
else
  integ_fail "text report: $(cat "$INTEG_TMP/three.txt")"
fi
# --log.level=debug: one line on stderr with where the time went, the
# report unchanged on stdout.
if timeout 60 "$BIN" --report --prometheus.url "$PROM_BACKFILLED" --run echo --since 1h --log.level=debug \
  >"$INTEG_TMP/debug.txt" 2>"$INTEG_TMP/debug.err" && cmp -s "$INTEG_TMP/debug.txt" "$INTEG_TMP/three.txt" &&
  [ "$(wc -l <"$INTEG_TMP/debug.err")" -eq 1 ] &&
  grep -Eq '^bottleneckd: report: [0-9]+ queries: the store answered in [0-9.]+ s \([0-9.]+ MB\), their JSON read in [0-9.]+ s; the analysis took [0-9.]+ s$' "$INTEG_TMP/debug.err"; then
  integ_pass "--log.level=debug: $(cat "$INTEG_TMP/debug.err")"
else
  integ_fail "--log.level=debug: $(cat "$INTEG_TMP/debug.err")"
fi
if timeout 60 "$BIN" --report --prometheus.url "$PROM_BACKFILLED" --run echo --since 1h --format html \
  >"$INTEG_TMP/three.html" 2>&1 && grep -q 'id="first">limited first: gen:9858' "$INTEG_TMP/three.html"; then
  integ_pass "HTML report names gen:9858 first"
else
  integ_fail "HTML report: $(head -c 300 "$INTEG_TMP/three.html")"
fi

integ_log "a live daemon joins a run"
integ_start_bottleneckd DPORT live "$BIN" --path.procfs="$SRC/tests/fixtures/seed-box/proc" \
  --path.sysfs="$SRC/tests/fixtures/seed-box/sys" --path.ethtool="$SRC/tests/fixtures/seed-box/ethtool"
SOCK="$INTEG_TMP/state-live/control.sock"
printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: bottleneckd\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' \
  "$DPORT" >"$INTEG_TMP/live.yml"
INTEG_PROM_BLOCKS="" integ_start_prometheus "$INTEG_TMP/live.yml"
# VictoriaMetrics scrapes the same daemon (its own scraper, the same config).
VM2_PORT=$(integ_free_port)
integ_spawn vm2_pid "$INTEG_TMP/vm2.log" victoria-metrics -storageDataPath="$INTEG_TMP/vm2" \
  -httpListenAddr="127.0.0.1:$VM2_PORT" -promscrape.config="$INTEG_TMP/live.yml" -search.latencyOffset=0s
VM2="http://127.0.0.1:$VM2_PORT"
if out=$("$BIN" run --join "lab join" --control.socket "$SOCK" 2>&1); then
  integ_pass "run --join: $out"
else
  integ_fail "run --join: $out"
fi
# run_active_series N: Prometheus holds N series of the joined run now.
run_active_series() { [ "$(integ_query 'bottleneckd_run_active{run="lab join"}' | wc -l)" -eq "$1" ]; }
if integ_wait_for 20 "the run's series in Prometheus" run_active_series 1; then
  integ_pass "bottleneckd_run_active{run=\"lab join\"} is in Prometheus while the run is active"
else
  integ_fail "bottleneckd_run_active{run=\"lab join\"} never reached Prometheus"
fi
out=$("$BIN" run --join "lab join" --control.socket "$SOCK" 2>&1)
rc=$?
if [ "$rc" -eq 125 ] && grep -q "cannot start run 'lab join'" <<<"$out"; then
  integ_pass "joining an active run again: exit 125, $out"
else
  integ_fail "joining an active run again: exit $rc, $out"
fi
sleep 3
if out=$("$BIN" run --leave "lab join" --control.socket "$SOCK" 2>&1) && grep -q "bottleneckd run 'lab join' (left)" <<<"$out"; then
  integ_pass "run --leave printed the run's report"
else
  integ_fail "run --leave: $out"
fi
if integ_wait_for 20 "the run's series gone" run_active_series 0; then
  integ_pass "bottleneckd_run_active{run=\"lab join\"} is gone after --leave"
else
  integ_fail "bottleneckd_run_active{run=\"lab join\"} still present after --leave"
fi
# Right after the run ends, with the default look-back (7d): the coarse
# pass's grid steps 605 s, and its last point could sit before the run (the
# report answered "no host ... had run" for up to 10 minutes).
# found_live NAME URL: the report finds the run and the host in it.
found_live() {
  if timeout 60 "$BIN" --report --prometheus.url "$2" --run "lab join" --format json \
    >"$INTEG_TMP/live-$1.json" 2>"$INTEG_TMP/live-$1.err" &&
    "$INTEG_PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
i = r["instances"]
sys.exit(0 if len(i) == 1 and i[0]["in_run"] and i[0]["instance"] == sys.argv[2] and r["end"] - r["start"] >= 2 else 1)
' "$INTEG_TMP/live-$1.json" "127.0.0.1:$DPORT"; then
    integ_pass "$1: the fleet report found run 'lab join' on 127.0.0.1:$DPORT right after it ended (7d look-back)"
  else
    integ_fail "$1: the fleet report of the live run: $(cat "$INTEG_TMP/live-$1.err") $(head -c 400 "$INTEG_TMP/live-$1.json")"
  fi
}
found_live prometheus "$PROM_URL"
# vm_has_run: VictoriaMetrics scraped the run's series (its scrapes lag Prometheus's a little).
vm_has_run() { curl -sf -m 5 "$VM2/api/v1/query" --data-urlencode 'query=max_over_time(bottleneckd_run_active{run="lab join"}[10m])' | grep -q '"value"'; }
if integ_wait_for 20 "VictoriaMetrics scraped the run" vm_has_run; then
  found_live victoriametrics "$VM2"
else
  integ_fail "VictoriaMetrics never scraped bottleneckd_run_active{run=\"lab join\"}: $(tail -n 3 "$INTEG_TMP/vm2.log")"
fi
integ_finish
