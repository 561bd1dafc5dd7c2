#!/usr/bin/env bash
# Scrapes over TLS with basic auth and a client certificate (issue 50), side
# by side in one run: bottleneckd and Debian's prometheus-node-exporter 1.5,
# both given the same web config (--web.config.file: TLS 1.2-1.3, a P-256
# certificate, RequireAndVerifyClientCert, one bcrypt user at cost 10), and
# each also plain (no web config) as the baseline. Both read the seed-box
# fixture tree (node_exporter restricted to the collectors that read the same
# files, as bench/scrape_compare.sh). Clients: bench/tls_scrape.py, N scrapes
# on one kept-alive connection ("kept") and N on a fresh connection each
# ("fresh": a full handshake per scrape), asking for gzip as Prometheus does.
# The credentials are checked once first (bcrypt), as Prometheus's first
# scrape does; the cached check is what the figures measure.
# Reported per exporter and mode:
#   CPU ms/scrape  the exporter's threads' run time (schedstat ns, lib.sh
#                  cpu_ns) over the N scrapes / N, less its idle CPU over the
#                  same wall time (measured before, the exporter alone)
#   latency        the client's request to end of body, median and p95
#   RSS            with TLS: the exporter's VmRSS before and with IDLE (1000)
#                  idle TLS connections open (each finished its handshake with
#                  the client certificate), per connection
# Not part of the test suite: nothing here passes or fails on a time.
#
# usage: bench/tls_scrape.sh [BOTTLENECKD_BINARY]
# env:   N=400 (scrapes per exporter and mode) IDLE=1000
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
N=${N:-400}
IDLE=${IDLE:-1000}
[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it, or pass its path)"
command -v prometheus-node-exporter >/dev/null || bench_die "prometheus-node-exporter is not installed"
command -v openssl >/dev/null || bench_die "openssl is not installed"

BENCH_TMP=$(mktemp -d)
trap bench_cleanup EXIT
D=$BENCH_TMP/pki
mkdir -p "$D"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$D/$1.key" 2>/dev/null; }
key ca && openssl req -x509 -new -key "$D/ca.key" -subj /CN=bench-ca -days 2 -out "$D/ca.crt" 2>/dev/null
for who in server prometheus; do
  key "$who"
  openssl req -new -key "$D/$who.key" -subj "/CN=$who" -out "$D/$who.csr" 2>/dev/null
  if [[ $who == server ]]; then echo "subjectAltName=IP:127.0.0.1" >"$D/ext"; else echo "extendedKeyUsage=clientAuth" >"$D/ext"; fi
  openssl x509 -req -in "$D/$who.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" -CAcreateserial -days 2 \
    -extfile "$D/ext" -out "$D/$who.crt" 2>/dev/null
done
HASH=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("bench", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
cat >"$D/web.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
basic_auth_users:
  prometheus: $HASH
EOF

FIXTURE=$SRC/tests/fixtures/seed-box
paths=(--path.procfs="$FIXTURE/proc" --path.sysfs="$FIXTURE/sys")
write_tick_config "$BENCH_TMP/bn.yaml"
# start NAME SECURED: one exporter; sets PID and URL.
start() {
  local name=$1 secured=$2 port log=$BENCH_TMP/$1.log web=()
  [[ $secured == 1 ]] && web=(--web.config.file="$D/web.yml")
  port=$(free_port)
  case $name in
    bottleneckd*)
      "$BIN" --web.listen-address="127.0.0.1:$port" --config.file="$BENCH_TMP/bn.yaml" "${paths[@]}" \
        --path.ethtool="$FIXTURE/ethtool" --path.state="$BENCH_TMP/state-$name" \
        --control.socket="$BENCH_TMP/$name.sock" "${web[@]}" 2>"$log" &
      ;;
    *)
      prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
        --collector.netdev --no-collector.netdev.netlink --collector.interrupts --collector.softnet \
        --collector.stat --collector.stat.softirq "${paths[@]}" "${web[@]}" 2>"$log" &
      ;;
  esac
  PID=$!
  BENCH_PIDS+=("$PID")
  if [[ $secured == 1 ]]; then URL="https://127.0.0.1:$port/metrics"; else URL="http://127.0.0.1:$port/metrics"; fi
  local i
  for ((i = 0; i < 100; i++)); do
    python3 "$HERE/tls_scrape.py" "$URL" 1 kept "$D" prometheus bench >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$log" >&2
  bench_die "$name does not answer on $URL"
}

RSS_ROWS=()
echo "N=$N scrapes per exporter and mode; seed-box fixture tree; $(nproc) CPUs; $(uname -r)"
echo
echo "| exporter | transport | connection | CPU ms/scrape | latency median ms | latency p95 ms | gzip body bytes |"
echo "|---|---|---|---|---|---|---|"
for exporter in bottleneckd node_exporter; do
  for secured in 0 1; do
    start "$exporter-$secured" "$secured"
    sleep 2.5  # bottleneckd: two samples, so every family is there
    # Idle CPU over a quiet stretch, to take out of the scrapes' CPU.
    c0=$(cpu_ns "$PID"); t0=$(now); sleep 3; c1=$(cpu_ns "$PID"); t1=$(now)
    idle_rate=$(awk -v c=$((c1 - c0)) -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", c / (b - a) }')  # ns/s
    for mode in kept fresh; do
      c0=$(cpu_ns "$PID"); t0=$(now)
      read -r ok n med p95 bytes < <(python3 "$HERE/tls_scrape.py" "$URL" "$N" "$mode" "$D" prometheus bench)
      c1=$(cpu_ns "$PID"); t1=$(now)
      [[ $ok == ok ]] || bench_die "$exporter: the scrapes failed"
      cpu=$(awk -v c=$((c1 - c0)) -v a="$t0" -v b="$t1" -v r="$idle_rate" -v n="$n" \
        'BEGIN { printf "%.3f", (c - r * (b - a)) / n / 1e6 }')
      echo "| $exporter | $([[ $secured == 1 ]] && echo "TLS + basic auth + client cert" || echo plain) | $mode | $cpu | $med | $p95 | $bytes |"
    done
    if [[ $secured == 1 ]]; then
      rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status")
      coproc IDLER { python3 "$HERE/tls_scrape.py" "$URL" "$IDLE" idle "$D" prometheus bench; }
      read -r ready held <&"${IDLER[0]}"
      [[ $ready == ready ]] || bench_die "$exporter: the idle connections failed"
      sleep 1
      rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status")
      eval "exec ${IDLER[1]}>&-"  # its stdin closes: it lets the connections go
      wait "$IDLER_PID" 2>/dev/null || true
      RSS_ROWS+=("| $exporter | $rss0 | $rss1 | $held | $(((rss1 - rss0) * 1024 / held)) |")
    fi
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  done
done
echo
echo "| exporter | RSS kB before | RSS kB with the idle TLS connections | connections | bytes each |"
echo "|---|---|---|---|---|"
printf '%s\n' "${RSS_ROWS[@]}"
