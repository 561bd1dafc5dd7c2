#!/usr/bin/env bash
# Live capture: the highest packet rate on a veth pair that bottleneckd
# captures with zero pcap drops, next to tcpdump on the same traffic (issue 6,
# docs/performance-history.md "Capture").
#
# A network namespace with one end of a veth pair (10.77.X.2/30); the other
# end (10.77.X.1/30) stays in the root namespace and is the captured
# interface. bench/udp_blast.c (built here with cc) sends, in the namespace,
# UDP datagrams of PAYLOAD bytes to the host end, paced with sendmmsg to each
# rate of RATES for STEP seconds (bounded by a count and a time limit); on the
# host a socket bound to the port never reads (the kernel drops what does not
# fit, no ICMP). IPv6 is off on both ends and the neighbours are static, so
# the only frames on the link are the datagrams.
# For each rate, one capture at a time:
#   tcpdump -i HOSTVETH -n -w /dev/null -s 128 -B BUFFER_KB: the captured and
#     "dropped by kernel" / "by interface" counts it prints at exit (SIGINT);
#   bottleneckd --capture.interface=HOSTVETH (snap length 128 and an 8 MiB
#     ring by default, like tcpdump's line): the deltas of
#     bottleneckd_capture_packets_total and bottleneckd_capture_drops_total
#     {source="buffer"|"interface"} over the step, from /metrics.
# Also each capture process's CPU time over the step (all its threads'
# schedstat run time; for bottleneckd it includes its 1 s sampling of the
# host). The ladder stops after the first rate the sender cannot reach
# (achieved < 90 % of the target).
# Needs root (namespace, veth, capture). Everything it creates is removed on
# exit. Nothing here passes or fails on a time. Markdown on stdout (and $OUT).
#
# usage: bench/capture_live.sh [BOTTLENECKD]
# env:   BIN (instead of the argument), RATES="50000 100000 200000 400000 800000"
#        STEP=5 (seconds of traffic a step) PAYLOAD=64 (UDP payload bytes)
#        SENDERS=1 (sender processes sharing each rate; more than one competes
#        with the capture for this host's CPUs)
#        TOOLS="tcpdump bottleneckd" BUFFER_KB=8192 (tcpdump -B; bottleneckd's
#        default buffer_bytes is the same 8 MiB) OUT=FILE
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
BIN=${1:-${BIN:-$SRC/build/bench/bottleneckd}}
RATES=${RATES:-"50000 100000 200000 400000 800000"}
STEP=${STEP:-5}
PAYLOAD=${PAYLOAD:-64}
TOOLS=${TOOLS:-"tcpdump bottleneckd"}
BUFFER_KB=${BUFFER_KB:-8192}
SENDERS=${SENDERS:-1}
OUT=${OUT:-}

die() { echo "capture_live.sh: $*" >&2; exit 1; }
say() { echo "capture_live: $*" >&2; }
[[ $(id -u) == 0 ]] || die "needs root: it creates a network namespace and a veth pair and captures"
[[ " $TOOLS " != *" bottleneckd "* || -x "$BIN" ]] || die "no bottleneckd binary at $BIN (bench/run.sh STEPS=build)"
for t in ip tcpdump curl cc sysctl; do command -v "$t" >/dev/null || die "$t missing"; done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-caplive-XXXXXX")
NS="bnbench$$"
HOST_IF="bb${$}h"
PEER_IF="bb${$}p"
HOLD_PID=""
CUR_PID=""  # the capture of the step running now (steps run in this shell, not in a subshell)
cleanup() {
  local pid
  for pid in $CUR_PID $HOLD_PID; do kill "$pid" 2>/dev/null || true; done
  for pid in $CUR_PID $HOLD_PID; do wait "$pid" 2>/dev/null || true; done
  ip link del "$HOST_IF" 2>/dev/null || true
  if ip netns list 2>/dev/null | grep -qw "$NS"; then
    ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O2 -o "$TMP/udp_blast" "$HERE/udp_blast.c" || die "cannot build bench/udp_blast.c"

# A 10.77.X.0/30 nobody uses here.
X=$((($$ % 200) + 20))
while ip -4 -o addr show | grep -q " 10\.77\.$X\."; do X=$(((X + 1) % 250)); done
HOST_IP=10.77.$X.1
PEER_IP=10.77.$X.2
PORT=$((40000 + ($$ % 10000)))

ip netns add "$NS" || die "ip netns add failed"
ip link add "$HOST_IF" type veth peer name "$PEER_IF" || die "ip link add veth failed"
ip link set "$PEER_IF" netns "$NS"
sysctl -qw "net.ipv6.conf.$HOST_IF.disable_ipv6=1"
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$PEER_IF.disable_ipv6=1"
ip addr add "$HOST_IP/30" dev "$HOST_IF"
ip netns exec "$NS" ip addr add "$PEER_IP/30" dev "$PEER_IF"
ip link set "$HOST_IF" up
ip netns exec "$NS" ip link set "$PEER_IF" up
ip netns exec "$NS" ip link set lo up
HOST_MAC=$(cat "/sys/class/net/$HOST_IF/address")
PEER_MAC=$(ip netns exec "$NS" cat "/sys/class/net/$PEER_IF/address")
ip neigh replace "$PEER_IP" lladdr "$PEER_MAC" dev "$HOST_IF" nud permanent
ip netns exec "$NS" ip neigh replace "$HOST_IP" lladdr "$HOST_MAC" dev "$PEER_IF" nud permanent
say "veth $HOST_IF ($HOST_IP) <-> $PEER_IF ($PEER_IP) in netns $NS; datagrams to port $PORT"

nrates=$(wc -w <<<"$RATES")
ntools=$(wc -w <<<"$TOOLS")
"$TMP/udp_blast" hold "$PORT" $((nrates * ntools * (STEP + 15) + 60)) >"$TMP/hold.out" &
HOLD_PID=$!
sleep 0.2
grep -q holding "$TMP/hold.out" || die "the discard socket could not bind port $PORT"

# CPU time of every thread of PID in nanoseconds (schedstat's run time).
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}'
}

# send RATE: one bounded burst from the namespace; sets SENT and ACHIEVED.
send() {
  local rate=$1 i pids=()
  for ((i = 0; i < SENDERS; i++)); do
    ip netns exec "$NS" "$TMP/udp_blast" send "$HOST_IP" "$PORT" $((rate / SENDERS)) $((rate * STEP / SENDERS)) \
      $((STEP + 2)) "$PAYLOAD" >"$TMP/send.out.$i" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  # The senders together: their datagrams, and the rate over the longest one's time.
  read -r SENT ACHIEVED < <(cat "$TMP"/send.out.* | sed -n 's/.*sent=\([0-9]*\).*seconds=\([0-9.]*\).*/\1 \2/p' |
    awk '{n += $1; if ($2 > t) t = $2} END {printf "%d %.0f\n", n, (t > 0 ? n / t : 0)}')
  rm -f "$TMP"/send.out.*
}

# step_tcpdump RATE: prints "sent achieved captured drop_kernel drop_iface cpu_ns".
step_tcpdump() {
  local rate=$1 pid i c0 c1 captured dk di
  tcpdump -i "$HOST_IF" -n -w /dev/null -s 128 -B "$BUFFER_KB" 2>"$TMP/tcpdump.err" &
  pid=$!
  CUR_PID=$pid
  for ((i = 0; i < 100; i++)); do grep -q 'listening on' "$TMP/tcpdump.err" && break; sleep 0.05; done
  grep -q 'listening on' "$TMP/tcpdump.err" || { cat "$TMP/tcpdump.err" >&2; die "tcpdump did not start"; }
  sleep 0.3
  c0=$(cpu_ns "$pid")
  send "$rate"
  sleep 1  # let the ring's last block reach tcpdump
  c1=$(cpu_ns "$pid")
  kill -INT "$pid"
  wait "$pid" 2>/dev/null || true
  CUR_PID=""
  captured=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$TMP/tcpdump.err")
  dk=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$TMP/tcpdump.err")
  di=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by interface.*/\1/p' "$TMP/tcpdump.err")
  echo "$SENT $ACHIEVED ${captured:-?} ${dk:-?} ${di:-0} $((c1 - c0))"
}

# The value of one series in $TMP/metrics: NAME and every label as given.
metric() {
  local name=$1 l v lab
  shift
  l=$(grep "^$name{" "$TMP/metrics" || true)
  for lab in "$@"; do l=$(grep -F -- "$lab" <<<"$l" || true); done
  v=$(awk 'NF {print $2; exit}' <<<"$l")
  printf '%.0f' "${v:-0}"
}
scrape() { curl -fs --max-time 5 "$BN_URL/metrics" >"$TMP/metrics"; }
bn_counts() {  # packets buffer_drops interface_drops samples
  scrape || { echo "? ? ? ?"; return; }
  echo "$(metric bottleneckd_capture_packets_total "interface=\"$HOST_IF\"")" \
    "$(metric bottleneckd_capture_drops_total "interface=\"$HOST_IF\"" 'source="buffer"')" \
    "$(metric bottleneckd_capture_drops_total "interface=\"$HOST_IF\"" 'source="interface"')" \
    "$(awk '$1 == "bottleneckd_samples_total" {printf "%.0f", $2}' "$TMP/metrics")"
}

# step_bottleneckd RATE: prints "sent achieved captured drop_buffer drop_iface cpu_ns".
step_bottleneckd() {
  local rate=$1 pid i addr="" log=$TMP/bn.log p0 b0 f0 s0 p1 b1 f1 s1 c0 c1 last=-1 stable=0
  mkdir -p "$TMP/state"
  "$BIN" --web.listen-address=127.0.0.1:0 --config.file=/dev/null --path.state="$TMP/state" \
    --control.socket="$TMP/state/control.sock" --capture.interface="$HOST_IF" 2>"$log" &
  pid=$!
  CUR_PID=$pid
  for ((i = 0; i < 100; i++)); do
    addr=$(sed -n 's/.*msg=listening address=\([0-9.]*:[0-9]*\).*/\1/p' "$log" | head -n1)
    [[ -n "$addr" ]] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "bottleneckd exited at start"; }
    sleep 0.1
  done
  [[ -n "$addr" ]] || { cat "$log" >&2; die "bottleneckd did not log its address"; }
  BN_URL="http://$addr"
  for ((i = 0; i < 50; i++)); do
    scrape && [[ $(metric bottleneckd_capture_up "interface=\"$HOST_IF\"") == 1 ]] && break
    sleep 0.2
  done
  [[ $(metric bottleneckd_capture_up "interface=\"$HOST_IF\"") == 1 ]] ||
    { grep -i capture "$log" >&2; die "bottleneckd's capture of $HOST_IF is not up"; }
  sleep 1.2  # a tick with the capture's counters in it
  read -r p0 b0 f0 s0 <<<"$(bn_counts)"
  c0=$(cpu_ns "$pid")
  send "$rate"
  # Until the packet count stops moving over two new samples (at most 8 s).
  for ((i = 0; i < 40; i++)); do
    sleep 0.2
    read -r p1 b1 f1 s1 <<<"$(bn_counts)"
    [[ "$s1" == "$s0" ]] && continue
    s0=$s1
    if [[ "$p1" == "$last" ]]; then ((++stable >= 2)) && break; else stable=0; last=$p1; fi
  done
  c1=$(cpu_ns "$pid")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  CUR_PID=""
  echo "$SENT $ACHIEVED $((p1 - p0)) $((b1 - b0)) $((f1 - f0)) $((c1 - c0))"
}

: >"$TMP/rows"
SENDER_LIMIT=""
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for rate in $RATES; do
  slow=0
  for tool in $TOOLS; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    "step_$tool" "$rate" >"$TMP/row"  # in this shell: the EXIT trap knows its capture
    row=$(cat "$TMP/row")
    say "$tool at $rate/s: sent achieved captured drops(buffer) drops(interface) cpu_ns = $row (load $load)"
    echo "$rate $tool $row $load" >>"$TMP/rows"
    read -r _ ach _ <<<"$row"
    ((ach * 10 >= rate * 9)) || slow=1
  done
  ((slow == 0)) || { SENDER_LIMIT=$rate; say "the sender reached less than 90 % of $rate/s: the ladder stops here"; break; }
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "veth pair, UDP datagrams of $PAYLOAD payload bytes ($((PAYLOAD + 42))-byte frames) from $SENDERS sender(s) in a namespace," \
    "$STEP s a step, one capture at a time, snap length 128, ${BUFFER_KB} KiB ring."
  echo "Kernel $(uname -r), $(nproc) CPUs; load average $LOAD_START at the start, $LOAD_END at the end."
  echo
  echo "| target/s | tool | sent | achieved/s | captured | missing (sent - captured) | drops (buffer / kernel) | drops (interface) | capture CPU ms | CPU ns per captured frame | load |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n", $1, $2, $3, $4, $5,
        ($5 ~ /^[0-9]+$/ ? $3 - $5 : "?"), $6, $7, $8 / 1e6, ($5 > 0 ? sprintf("%.0f", $8 / $5) : "-"), $9}' "$TMP/rows"
  echo
  for tool in $TOOLS; do
    # By the rate the sender achieved (a step the sender could not reach still counts at what it sent).
    best=$(awk -v t="$tool" '$2 == t && $6 == 0 && $7 == 0 && $5 >= $3 {if ($4 > m) m = $4} END {print m + 0}' "$TMP/rows")
    first=$(awk -v t="$tool" '$2 == t && ($6 != 0 || $7 != 0 || $5 < $3) {print $4; exit}' "$TMP/rows")
    echo "- $tool: highest achieved rate with zero drops and every datagram captured: ${best}/s$([[ -n "$first" ]] &&
      echo "; first loss at ${first}/s" || echo "; no loss at any rate sent")"
  done
  if [[ -n "$SENDER_LIMIT" ]]; then
    echo "- the ladder stopped at $SENDER_LIMIT/s: the sender reached less than 90 % of it (the sender, not the capture, is the limit there)"
  fi
} | tee "${OUT:-/dev/null}"
