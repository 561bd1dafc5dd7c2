#!/usr/bin/env bash
# What reading a target's TCP listeners costs (collectors/input_sockets.h):
# the whole /proc/PID/net/tcp against its first 4 KiB page, the head the
# collector reads (the kernel writes listeners before connections), with N
# loopback connections open in a network namespace of its own (unshare -n;
# root). The connections are the test's; nothing leaves the namespace.
#   usage: bench/tcp_table_head.sh [N...]   (default: 100 1000 5000)
set -euo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "tcp_table_head.sh: needs root (unshare -n)" >&2; exit 1; }
for n in "${@:-100 1000 5000}"; do
  for each in $n; do
    unshare -n sh -c "ulimit -n 65536 2>/dev/null; ip link set lo up; python3 tcp_table_head.py $each"
  done
done
