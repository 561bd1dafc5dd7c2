#!/usr/bin/env bash
# lab.fleet: three hosts in network namespaces, one Prometheus, and the fleet
# report asked which host limited each run (docs/fleet.md "Hosts that share a
# machine"; tests/echo_lab/README.md).
#
#   box        the echo server (udpecho, cpu1), its daemon (cpu1)
#   gen        the generator (lab_load_gen, cpu0), its daemon (cpu0)
#   bystander  a host in the run that carries none of its load: a daemon only,
#              on the CPU the scenario leaves unsaturated
#
# Each daemon judges the CPUs it may run on (verdict.cpus: affinity, pinned
# with taskset), as a host of its own would. This machine has two CPUs, so
# the bystander cannot own a third: it shares the CPU of the host that is not
# saturated (cpu1 in gen-bound, cpu0 in box-bound; on three or more CPUs it
# gets cpu2 in both). Soakers are off on all three: one host's SCHED_IDLE
# soaker is busy time in another's /proc/stat on a shared CPU.
#
# Scenarios (each a run every daemon joins by name, `bottleneckd run --join`):
#   gen-bound  the generator spins 100 us composing each datagram
#              (LAB_GEN_WORK_US) and is asked for 16 k/s: it saturates cpu0
#              and sends what it can; the echo (K=0) keeps up
#   box-bound  the generator paced at 16 k/s (no work), the echo making 20000
#              copies of each datagram: the echo saturates cpu1, the socket drops
#              (with 10000 it kept 14.1 k of 16 k/s in one run)
# Ground truth, read by this script: the generator's sent and echoed counts
# against the rate asked, and the generator's and the echo thread's running
# share from /proc/TID/schedstat. The assertion: `bottleneckd --report
# --prometheus.url ... --run NAME --format json` names the saturated host as
# limited first and longest, bound by cpu, and the other two not bound.
#
# usage: fleet_lab_test.sh BOTTLENECKD SOURCE_DIR ECHO_SERVER LOAD_GEN
TEST_NAME=fleet_lab_test
BIN=${1:?usage: fleet_lab_test.sh BOTTLENECKD SOURCE_DIR ECHO_SERVER LOAD_GEN}
SRC=${2:?usage}
LAB_SERVER=${3:?usage}
LAB_GEN=${4:?usage}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 300 "$@"
integ_init
integ_require_tools python3 ip curl awk pgrep taskset prometheus
# shellcheck source=tests/echo_lab/lab.sh
. "$SRC/tests/echo_lab/lab.sh"
lab_up
lab_up_bystander

GEN_CPU=0
ECHO_CPU=1
SECONDS_LOADED=14
RATE=16000
WEB_PORT=9858  # each namespace has its own ports

# host_config NAME INTERFACE [TARGET]: the host's config file.
host_config() {
  cat >"$INTEG_TMP/$1.yaml" <<YAML
soaker:
  mode: "off"
collectors:
  irqtime:
    mode: "off"
  offcpu:
    enabled: false
  profile:
    mode: "off"
  threads:
    targets: [${3:+{name: $3\}}]
verdict:
  cpus: affinity
  packet_path_interfaces: [$2]
YAML
}
host_config box "$LAB_BOX_IF" udpecho
host_config gen "$LAB_GEN_IF" lab_load_gen
host_config bystander "$LAB_BY_IF"

# host_start NAME NETNS CPU ADDRESS: the host's daemon, pinned to CPU in its
# namespace, serving /metrics on ADDRESS:WEB_PORT; its pid in PID_<NAME>.
host_start() {
  local name="$1" ns="$2" cpu="$3" addr="$4" log="$INTEG_TMP/daemon-$1.log" pid i
  mkdir -p "$INTEG_TMP/state-$name"
  integ_spawn pid "$log" ip netns exec "$ns" taskset -c "$cpu" "$BIN" --config.file="$INTEG_TMP/$name.yaml" \
    --web.listen-address="$addr:$WEB_PORT" --path.state="$INTEG_TMP/state-$name" \
    --control.socket="$INTEG_TMP/state-$name/control.sock"
  for ((i = 0; i < 300; i++)); do
    grep -q 'msg=listening' "$log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || integ_die "the $name daemon exited during startup: $(tail -n 5 "$log")"
    sleep 0.1
  done
  grep -q 'msg=listening' "$log" || integ_die "the $name daemon did not listen within 30 s: $(tail -n 3 "$log")"
  printf -v "PID_$name" '%s' "$pid"
  integ_log "host $name: daemon pid $pid on cpu$cpu, netns $ns, $addr:$WEB_PORT"
}
host_stop() {
  local var="PID_$1"
  kill -TERM "${!var}" 2>/dev/null
  wait "${!var}" 2>/dev/null
}
host_run() {  # NAME --join|--leave RUN
  "$BIN" run "$2" "$3" --control.socket="$INTEG_TMP/state-$1/control.sock" >"$INTEG_TMP/$1-$2-$3.out" 2>&1 ||
    integ_fail "host $1: run $2 $3: $(tail -n 2 "$INTEG_TMP/$1-$2-$3.out")"
}

host_start box "$LAB_NSB" "$ECHO_CPU" 127.0.0.1
host_start gen "$LAB_NSG" "$GEN_CPU" "$LAB_GEN_IP"

# One Prometheus, in the box's namespace: it reaches the box's daemon on lo,
# the generator's over the lab veth, the bystander's over its own.
cat >"$INTEG_TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: bottleneckd
    static_configs:
      - {targets: ["127.0.0.1:$WEB_PORT"], labels: {instance: box}}
      - {targets: ["$LAB_GEN_IP:$WEB_PORT"], labels: {instance: gen}}
      - {targets: ["$LAB_BY_IP:$WEB_PORT"], labels: {instance: bystander}}
YAML
integ_spawn PROM_PID "$INTEG_TMP/prometheus.log" ip netns exec "$LAB_NSB" prometheus \
  --config.file="$INTEG_TMP/prometheus.yml" --storage.tsdb.path="$INTEG_TMP/tsdb" --web.listen-address=127.0.0.1:9090
for ((i = 0; i < 300; i++)); do
  lab_box curl -sf -m 2 http://127.0.0.1:9090/-/ready >/dev/null 2>&1 && break
  sleep 0.1
done

# thread_run_ns TID: nanoseconds the thread has run (schedstat field 1).
thread_run_ns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }

# scenario NAME BYSTANDER_CPU K WORK_US EXPECT: one run across the three hosts.
scenario() {
  local name="$1" by_cpu="$2" k="$3" work="$4" expect="$5" gen_pid gen_tid echo_tid t0 t1 g0 g1 e0 e1 host
  integ_log "scenario $name: K=$k, generator work ${work} us per datagram, $RATE/s for $SECONDS_LOADED s; the bystander on cpu$by_cpu"
  host_start bystander "$LAB_NSY" "$by_cpu" "$LAB_BY_IP"
  lab_server_start "$ECHO_CPU" "$k" $((SECONDS_LOADED + 20))
  echo_tid="$(lab_server_tid)"
  for host in box gen bystander; do host_run "$host" --join "$name"; done
  sleep 3  # windows before the load: every host in the run, none bound
  LAB_GEN_WORK_US="$work" ip netns exec "$LAB_NSG" "$LAB_GEN" "$LAB_BOX_IP" "$LAB_PORT" 1024 "$GEN_CPU" \
    "$SECONDS_LOADED" "$RATE" >"$INTEG_TMP/$name-gen.out" 2>"$INTEG_TMP/$name-gen.err" &
  gen_pid=$!
  INTEG_PIDS+=("$gen_pid")
  sleep 3
  gen_tid="$(pgrep -x lab_load_gen | head -n 1)"
  t0=$EPOCHREALTIME g0=$(thread_run_ns "$gen_tid") e0=$(thread_run_ns "$echo_tid")
  sleep $((SECONDS_LOADED - 5))
  t1=$EPOCHREALTIME g1=$(thread_run_ns "$gen_tid") e1=$(thread_run_ns "$echo_tid")
  wait "$gen_pid"
  sleep 3  # windows after the load
  for host in box gen bystander; do host_run "$host" --leave "$name"; done
  lab_server_stop
  host_stop bystander
  echo "$t0 $t1 $g0 $g1 $e0 $e1" >"$INTEG_TMP/$name-threads"
  sleep 2  # the last scrapes
  lab_box "$BIN" --report --prometheus.url http://127.0.0.1:9090 --run "$name" --since 10m \
    >"$INTEG_TMP/$name-report.txt" 2>&1
  sed 's/^/    /' "$INTEG_TMP/$name-report.txt"
  if ! lab_box "$BIN" --report --prometheus.url http://127.0.0.1:9090 --run "$name" --since 10m --format json \
    >"$INTEG_TMP/$name-report.json" 2>"$INTEG_TMP/$name-report.err"; then
    integ_fail "scenario $name: the fleet report failed: $(cat "$INTEG_TMP/$name-report.err")"
    return
  fi
  lab_check_with fleet_lab_check.py "$name" "$expect" "$RATE" "$INTEG_TMP/$name-gen.out" "$INTEG_TMP/$name-threads" \
    "$INTEG_TMP/$name-report.json"
}

by_a=$ECHO_CPU by_b=$GEN_CPU
if [ "$(nproc)" -ge 3 ]; then by_a=2 by_b=2; fi
scenario gen-bound "$by_a" 0 100 gen
scenario box-bound "$by_b" 20000 0 box
integ_finish
