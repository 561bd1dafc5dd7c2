#!/usr/bin/env bash
# The echo lab (tests/echo_lab/README.md, docs/verdict-rules.md section 9):
# real UDP echo load on this machine's kernel, and bottleneckd's verdicts on
# it asserted against ground truth from the generator's counts and the
# kernel's own counters (snmp, softnet_stat, /proc/stat, the echo thread's
# schedstat and context switches), read by this script.
#
# Scenarios (generator pinned to cpu0, echo server pinned to cpu1, the daemon
# in the box's network namespace with the soaker on and the echo thread as a
# target; each scenario is a `bottleneckd run`, its verdict read back with
# `--report --run NAME --format json`):
#   light     2 k/s of 1024-byte datagrams, no copies            -> none
#   cpu       the generator flat out (saturating its own cpu0), 10000 copies
#             per datagram: the echo saturates cpu1, the socket drops
#                                                                -> cpu, the echo thread (or cpu1), not cpu0
#   softirq   RPS steers receive processing of 64-byte datagrams to cpu1,
#             the generator flat out: cpu1 lives in softirq, the thread's
#             time is charged softirq work                       -> interrupt cpu1
#   k-sweep   K = 0, 3000, 20000 copies, each a run stepping 4 k, 8 k, 16 k/s:
#             the seeds' table (`--report` of the runs), one segment per
#             step, throughput falling with K at the top step
#   alerts    the real Prometheus in the box evaluates the shipped alert
#             rules (durations scaled) during a CPU-bound echo: BottleneckdBound
#             fires
#   wait      the echo sleeps 50 us after every datagram (capacity about
#             11-14 k/s), stepping 6 k/s then 18-30 k/s: echoed flat while sent
#             rises, socket drops, the thread mostly off-CPU and its CPU well
#             under 100 %                                        -> wait, thread udpecho;
#             the live plateau metric 1 and BottleneckdUtilisationPlateau
#             firing in the same Prometheus
#   handoff   the echo hands every datagram over a mutex to a second thread
#             that holds it while it echoes and sleeps 50 us, 16 k/s: the
#             receiver waits in the lock                         -> wait, thread udpecho
#   peer      the echo asks a backend over a connected UDP socket before
#             each reply (the backend answers after 50 us), 6 k/s then
#             21-33 k/s: it waits in the same receive function as a reader
#             waiting for input, but on its peer   -> wait, thread udpecho,
#             the evidence naming the connected socket and the backend
# The live plateau metric stays 0 through light and cpu.
# Every load loop is bounded (the generator's steps, the server's deadline);
# namespaces, interfaces and processes are removed on every exit path.
#
# usage: echo_lab_test.sh BOTTLENECKD SOURCE_DIR ECHO_SERVER LOAD_GEN
TEST_NAME=echo_lab_test
BIN=${1:?usage: echo_lab_test.sh BOTTLENECKD SOURCE_DIR ECHO_SERVER LOAD_GEN}
SRC=${2:?usage}
LAB_SERVER=${3:?usage}
LAB_GEN=${4:?usage}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 600 "$@"
integ_init
integ_require_tools python3 ip nsenter curl awk pgrep prometheus
# shellcheck source=tests/echo_lab/lab.sh
. "$SRC/tests/echo_lab/lab.sh"
lab_up

ECHO_CPU=1
GEN_CPU=0
STATE="$INTEG_TMP/state-lab"
mkdir -p "$STATE"
# irqtime and offcpu off: these scenarios check the rules on the accounting
# path (what an unprivileged daemon, or a kernel without the irq tracepoints,
# sees: tick samples, the soaker, wchan sampled from /proc). lab.irqtime (irqtime_lab_test.sh) runs the same
# scenarios with the interrupt time measured and expects the same labels
# (docs/irqtime.md "Verdicts").
cat >"$INTEG_TMP/lab.yaml" <<YAML
soaker:
  mode: always
collectors:
  irqtime:
    mode: "off"
  offcpu:
    enabled: false
  threads:
    targets:
      - name: udpecho
YAML
# The daemon runs inside the box's namespace (lab_start_daemon).
lab_start_daemon PORT lab --config.file="$INTEG_TMP/lab.yaml" \
  --path.state="$STATE" --control.socket="$STATE/control.sock"
DAEMON_PID=$INTEG_LAST_PID

# The published verdict ("t label resource" lines in verdicts.log), the live
# plateau and the echo thread's state ("t METRIC_LINE" in metrics.log),
# scraped twice a second inside the box for the whole test (bounded: it stops
# when the stop file appears, or after 420 s); a scrape that failed ("t
# curl's exit code" in scrape-failures.log) and the slowest answer (curl's
# own time, "t took SECONDS" in scrape-times.log, beside its errors) are
# said beside the timeline's figures, which also read the time to verdict
# from the run store.
poller() {
  local end=$((SECONDS + 420)) line t re='^bottleneckd_verdict_info\{bound="([^"]*)",resource="([^"]*)"\}'
  while [ "$SECONDS" -lt "$end" ] && [ ! -e "$INTEG_TMP/poller.stop" ]; do
    t=""
    while IFS= read -r line; do
      [ -n "$t" ] || t=$EPOCHREALTIME  # no fork: the poller runs beside the echo under test
      if [[ $line =~ $re ]]; then
        echo "$t ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" >>"$INTEG_TMP/verdicts.log"
      else
        echo "$t $line" >>"$INTEG_TMP/metrics.log"
      fi
    done < <({ lab_box_net curl -sS -f -m 2 -w "%{stderr}$EPOCHREALTIME took %{time_total}\n" \
      "http://127.0.0.1:$PORT/metrics" 2>>"$INTEG_TMP/scrape-times.log" ||
      echo "$EPOCHREALTIME $?" >>"$INTEG_TMP/scrape-failures.log"; } |
      grep -E '^bottleneckd_(verdict_info\{|utilisation_plateau |thread_state_ratio\{.*thread="udpecho"|cpu_budget_(overlap_)?ratio\{cpu="1")')
    sleep 0.5
  done
}
poller >"$INTEG_TMP/poller.log" 2>&1 &
INTEG_PIDS+=("$!")

# NAME LABEL RESOURCES [FROM]: time to verdict and changes in the scenario's
# span, from FROM s in (the start of its first loaded step; default 0).
timeline() {
  local span
  read -r -a span <"$INTEG_TMP/$1/span" || return
  lab_check timeline "$INTEG_TMP/verdicts.log" "$(awk -v s="${span[0]}" -v f="${4:-0}" 'BEGIN { printf "%.3f", s + f }')" \
    "${span[1]}" "$2" "$3" "$STATE/runs.db" "$1" "$INTEG_TMP/scrape-failures.log"
}
plateau() {  # NAME 0|1 [FROM]: the live plateau metric in the scenario's span, from FROM s in
  local span
  read -r -a span <"$INTEG_TMP/$1/span" || return
  lab_check plateau "$1" "$INTEG_TMP/metrics.log" "${span[0]}" "${span[1]}" "$2" "${3:-0}" "$STATE/runs.db"
}

lab_rps 0
lab_scenario_light
plateau light 0
lab_scenario_cpu
timeline cpu cpu "thread udpecho"
plateau cpu 0
lab_rps 2
lab_scenario_softirq
timeline softirq interrupt cpu1
lab_rps 0

# The seeds' experiment: the same offered steps with more copies per datagram.
lab_scenario_sweep 0 3000 20000

# The shipped alert rules, durations scaled down (5m -> 15s, 2m -> 20s, 1m ->
# 10s), evaluated by the real Prometheus (in the box, scraping the daemon
# every second) while the echo is CPU-bound: BottleneckdBound must fire.
command -v prometheus >/dev/null || integ_die "prometheus missing: install the Debian package (scripts/install-deps.sh)"
sed -e 's/\[1m\]/[10s]/g; s/\[2m\]/[20s]/g; s/for: 5m/for: 15s/; s/for: 1m/for: 10s/' \
  "$SRC/etc/prometheus/bottleneckd-alerts.yml" >"$INTEG_TMP/alerts-scaled.yml"
cat >"$INTEG_TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$INTEG_TMP/alerts-scaled.yml"]
scrape_configs:
  - job_name: bottleneckd
    static_configs: [{targets: ["127.0.0.1:$PORT"]}]
YAML
integ_spawn PROM_PID "$INTEG_TMP/prometheus.log" ip netns exec "$LAB_NSB" prometheus \
  --config.file="$INTEG_TMP/prometheus.yml" --storage.tsdb.path="$INTEG_TMP/tsdb" --web.listen-address=127.0.0.1:9090
for ((i = 0; i < 300; i++)); do
  lab_box curl -sf -m 2 http://127.0.0.1:9090/-/ready >/dev/null 2>&1 && break
  sleep 0.1
done
alerts() {  # the firing alerts, "NAME bound" per line
  lab_box curl -sf -m 3 http://127.0.0.1:9090/api/v1/query --data-urlencode 'query=ALERTS{alertstate="firing"}' |
    "$INTEG_PYTHON" -c 'import json,sys; [print(r["metric"]["alertname"], r["metric"].get("bound","")) for r in json.load(sys.stdin)["data"]["result"]]'
}
prom_value() {  # PROMQL: the instant query's first value ("" when none)
  lab_box curl -sf -m 3 http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$1" |
    "$INTEG_PYTHON" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
lab_server_start "$ECHO_CPU" 10000 70
sleep 1.5
integ_log "alerts: CPU-bound echo (K=10000) at 16 k/s for at most 50 s, the scaled rules evaluated every second"
# shellcheck disable=SC2046
$(lab_gen_cmd 1024 "$GEN_CPU" 50 16000) >"$INTEG_TMP/alerts-gen.out" 2>&1 &
GEN_PID=$!
INTEG_PIDS+=("$GEN_PID")
T0=$SECONDS
fired=""
while kill -0 "$GEN_PID" 2>/dev/null && [ $((SECONDS - T0)) -lt 55 ]; do
  fired="$(alerts 2>/dev/null | grep '^BottleneckdBound cpu' || true)"
  [ -n "$fired" ] && break
  sleep 1
done
if [ -n "$fired" ]; then
  integ_pass "Prometheus: BottleneckdBound{bound=\"cpu\"} firing $((SECONDS - T0)) s into the CPU-bound load (for: 15s)"
else
  integ_fail "Prometheus: BottleneckdBound never fired under the CPU-bound load: $(alerts 2>&1 | tr '\n' ' ')"
fi
echo "FIGURE: alerts firing: $(alerts 2>/dev/null | tr '\n' ';')"
echo "FIGURE: plateau metric over the load: $(prom_value 'max_over_time(bottleneckd_utilisation_plateau[60s])')"
kill -TERM "$GEN_PID" 2>/dev/null
wait "$GEN_PID" 2>/dev/null
lab_server_stop

# plateau_alert NAME FROM: the shipped BottleneckdUtilisationPlateau firing in
# Prometheus once NAME's load passed capacity (FROM s into its span). The
# rule's smoothing and `for:` (10 s each, scaled) lag the metric, and the live
# plateau holds its steps for a minute: the alert is waited for up to 30 s
# after the run.
plateau_alert() {
  local span first="" i q='ALERTS{alertname="BottleneckdUtilisationPlateau",alertstate="firing"}'
  read -r -a span <"$INTEG_TMP/$1/span" || return
  for ((i = 0; i < 30; i++)); do
    first="$(prom_value "min_over_time(timestamp($q)[$((EPOCHSECONDS - ${span[0]%.*} + 1))s:1s])")"
    [ -n "$first" ] && break
    sleep 1
  done
  if [ -n "$first" ]; then
    integ_pass "$(awk -v f="$first" -v s="${span[0]}" -v e="${span[1]}" -v from="$2" 'BEGIN {
      printf "Prometheus: BottleneckdUtilisationPlateau firing %.0f s after the load passed capacity " \
        "(the run ended at %.0f s)", f - s - from, e - s - from }')"
  else
    integ_fail "Prometheus: BottleneckdUtilisationPlateau never fired (30 s after the run); firing: \
$(alerts 2>&1 | tr '\n' ';') plateau metric over the last 90 s: mean \
$(prom_value 'avg_over_time(bottleneckd_utilisation_plateau[90s])') max \
$(prom_value 'max_over_time(bottleneckd_utilisation_plateau[90s])')"
  fi
}

# prom_kept_up NAME: what Prometheus itself held of NAME's span, said when an
# alert did not fire: its scrapes of the daemon (one a second asked), how many
# read bound="wait", and its rule group's missed evaluations. A Prometheus
# that scraped under 80 % of the span's seconds or missed evaluations could
# not see what the daemon said (this 2-CPU box under the lab's load starved
# it): an ENVIRONMENT line, which tests/echo_lab/attempts.sh retries. Anything
# else is the rules' failure, not retried.
prom_kept_up() {
  local span len at scrapes waits missed
  read -r -a span <"$INTEG_TMP/$1/span" || return
  len=$(awk -v s="${span[0]}" -v e="${span[1]}" 'BEGIN { printf "%d", e - s }')
  at=$(awk -v e="${span[1]}" 'BEGIN { printf "%d", e }')
  scrapes="$(prom_value "count_over_time(up{job=\"bottleneckd\"}[${len}s] @ $at)")"
  waits="$(prom_value "sum_over_time(bottleneckd_verdict{bound=\"wait\"}[${len}s] @ $at)")"
  missed="$(lab_box curl -sf -m 3 http://127.0.0.1:9090/metrics |
    awk '/^prometheus_rule_group_iterations_missed_total/ { n += $2 } END { printf "%d", n }')"
  echo "Prometheus held ${scrapes:-0} scrapes of the ${len} s span, ${waits:-0} of them bound=\"wait\";" \
    "its rule groups missed ${missed:-?} evaluations (prometheus_rule_group_iterations_missed_total)"
  if awk -v n="${scrapes:-0}" -v l="$len" -v m="${missed:-0}" 'BEGIN { exit !(n < 0.8 * l || m > 0) }'; then
    echo "ENVIRONMENT: $1: Prometheus kept up with ${scrapes:-0} scrapes in the ${len} s span and missed" \
      "${missed:-?} rule evaluations (the lab's load starved it)" >&2
  fi
}

# The echo that waits: udpecho sleeps LAB_WAIT_US after every datagram, so it
# echoes at most about 1 / (LAB_WAIT_US + its own 25-35 us) datagrams a second,
# its CPU mostly idle, and its socket drops the rest: the seeds' plateau with
# nothing saturated (docs/verdict-rules.md section 9). Its steps: lab.sh.
lab_scenario_wait
timeline wait wait "thread udpecho" 8  # from the first loaded step (21 k/s), after the 8 s light one
plateau wait 1 8
plateau_alert wait 8
# The bound alert counts wait as a bound (etc/prometheus/bottleneckd-alerts.yml).
if [ "$(prom_value 'max_over_time(ALERTS{alertname="BottleneckdBound",bound="wait",alertstate="firing"}[3m])')" = 1 ]; then
  integ_pass "Prometheus: BottleneckdBound{bound=\"wait\"} fired under the waiting echo"
else
  integ_fail "Prometheus: BottleneckdBound{bound=\"wait\"} never fired under the waiting echo; firing: \
$(alerts 2>&1 | tr '\n' ';') $(prom_kept_up wait)"
fi
lab_scenario_handoff
# The echo that waits on a peer: its receive waits are on the backend's
# socket, not its input (lab.sh, docs/verdict-rules.md section 2).
lab_scenario_peer
timeline peer wait "thread udpecho" 8
lab_scenario_tcppeer
timeline tcppeer wait "thread udpecho" 8
# A server deadlocked before it was followed (lab.sh).
lab_scenario_deadlock
lab_scenario_pool
timeline pool wait "thread udpecho" 7  # from the first loaded step (16 k/s), after the 7 s light one
lab_scenario_convoy
timeline convoy wait "thread udpecho" 7
lab_scenario_pipe
timeline pipe wait "thread udpecho" 7
lab_scenario_idle
timeline idle wait "thread udpecho" 7
lab_scenario_epoll
timeline epoll wait "thread udpecho" 7
echo "FIGURE: alerts firing after the waiting echoes: $(alerts 2>/dev/null | tr '\n' ';')"

touch "$INTEG_TMP/poller.stop"
kill -0 "$DAEMON_PID" 2>/dev/null && integ_pass "the daemon ran through the lab" || integ_fail "the daemon died"
integ_finish
