#!/usr/bin/env bash
# A new TCP connection per scrape (issue 47), side by side with the peer: one
# bottleneckd (this host, default config) and one node_exporter (Debian's
# prometheus-node-exporter, its default collectors), each on a 127.0.0.1 port
# the kernel picked, get the same load one after the other: CLIENTS threads of
# bench/fresh_scrapes.c each GET /metrics on a fresh connection ("Connection:
# close"), back to back, for DURATION s, each waiting GAP_US microseconds
# between its connect() and its send() (default 0; an interpreter's client or
# a TLS handshake sits there for about a millisecond). With STALL=S the server and the
# clients are stopped together (SIGSTOP) for S seconds, twice, at a third and
# two thirds of the load: what a paused VM or a starved client does to
# connections between their connect() and their send().
# Reported per server: requests, answered (200), closed with no answer, reset,
# cut short, connect errors, latency (connect to end) p50/p99/max, requests/s,
# the server's CPU over the load, and the first failures (client port, when).
# Not part of the test suite: nothing here passes or fails on a time
# (tests/exporters/http/event_server_test.cc holds the behaviour).
#
# usage: bench/http_fresh.sh [BOTTLENECKD_BINARY]
# env:   DURATION=60 CLIENTS=50 GAP_US=0 STALL=0 PEER=1 (0: bottleneckd only)
#        OUT=FILE (also write the markdown table there)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

BIN=${1:-$SRC/build/bench/bottleneckd}
DURATION=${DURATION:-60}
CLIENTS=${CLIENTS:-50}
STALL=${STALL:-0}
GAP_US=${GAP_US:-0}
PEER=${PEER:-1}
OUT=${OUT:-}

[[ -x "$BIN" ]] || bench_die "no bottleneckd binary at $BIN (build it with bench/run.sh)"
command -v cc >/dev/null || bench_die "no C compiler (cc)"
command -v python3 >/dev/null || bench_die "python3 is not installed"
if [[ "$PEER" == 1 ]]; then
  command -v prometheus-node-exporter >/dev/null || bench_die "prometheus-node-exporter is not installed (PEER=0 skips it)"
fi
((DURATION >= 3 && DURATION <= 3600)) || bench_die "DURATION is 3 to 3600 s"

trap bench_cleanup EXIT
trap 'exit 130' INT TERM
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bottleneckd-bench-XXXXXX")
cc -O2 -pthread -o "$BENCH_TMP/fresh_scrapes" "$HERE/fresh_scrapes.c"

# load NAME PID URL: the clients against one server; its figures in
# $BENCH_TMP/NAME.json and NAME.env.
load() {
  local name=$1 pid=$2 port=${3##*:} client t0 t1 third
  echo "$name pid $pid on 127.0.0.1:$port: $CLIENTS clients, a connection per scrape (gap ${GAP_US} us)," \
    "${DURATION}s, stalled ${STALL}s twice" >&2
  t0=$(cpu_ticks "$pid")
  "$BENCH_TMP/fresh_scrapes" "$port" "$CLIENTS" "$DURATION" /metrics 10000000 "$GAP_US" >"$BENCH_TMP/$name.json" &
  client=$!
  BENCH_PIDS+=("$client")
  if ((STALL > 0)); then
    third=$((DURATION / 3))
    for _ in 1 2; do
      sleep "$third"
      kill -STOP "$pid" "$client"
      sleep "$STALL"
      kill -CONT "$pid" "$client"
    done
  fi
  wait "$client"
  t1=$(cpu_ticks "$pid")
  echo "CPU_MS=$(((t1 - t0) * 1000 / CLK_TCK))" >"$BENCH_TMP/$name.env"
}

mkdir -p "$BENCH_TMP/state"
start_bottleneckd "$BIN" "$BENCH_TMP/daemon.log" --path.state="$BENCH_TMP/state" \
  --control.socket="$BENCH_TMP/state/control.sock"
sleep 2  # a couple of samples in, so /metrics has its full size
load bottleneckd "$BN_PID" "$BN_URL"
NAMES=(bottleneckd)
if [[ "$PEER" == 1 ]]; then
  kill "$BN_PID"
  wait "$BN_PID" 2>/dev/null || true
  start_node_exporter "$BENCH_TMP/node_exporter.log"
  sleep 2
  load node_exporter "$NE_PID" "$NE_URL"
  NAMES+=(node_exporter)
fi

python3 - "$BENCH_TMP" "${NAMES[@]}" <<EOF | tee ${OUT:+"$OUT"}
import json, sys
tmp, names = sys.argv[1], sys.argv[2:]
cols, fails = [], []
for n in names:
    d = json.load(open(f"{tmp}/{n}.json"))
    cpu = open(f"{tmp}/{n}.env").read().strip().split("=", 1)[1]
    cols.append(["%d" % d["requests"], "%d" % d["ok"], "%d" % d["no_answer"], "%d" % d["reset"],
                 "%d" % d["short"], "%d" % d["connect"], "%d" % d["status"],
                 "%s / %s / %s ms" % (d.get("p50_ms", "-"), d.get("p99_ms", "-"), d.get("max_ms", "-")),
                 "%.0f" % (d["requests"] / d["seconds"]), "%s ms" % cpu])
    fails += ["%s: %s at %.3f s after %.1f ms (client port %d) %s" % (n, f["outcome"], f["at_s"], f["ms"], f["port"], f["errno"])
              for f in d["failures"][:5]]
rows = ["requests", "answered 200", "closed with no answer", "reset before an answer", "cut short",
        "connect errors", "other status", "latency p50 / p99 / max", "requests/s", "server CPU over the load"]
print("load: $CLIENTS clients, a new connection per GET /metrics (${GAP_US} us from connect to send), ${DURATION} s"
      + (", server and clients stopped ${STALL} s twice" if $STALL > 0 else "") + "; bottleneckd on this host\n")
print("| measure | " + " | ".join(names) + " |")
print("|---" * (len(names) + 1) + "|")
for i, r in enumerate(rows):
    print("| %s | %s |" % (r, " | ".join(c[i] for c in cols)))
if fails:
    print("\nfirst failures:\n" + "\n".join("- " + f for f in fails))
EOF
