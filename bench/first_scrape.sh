#!/usr/bin/env bash
# What a newcomer waits for: the README's run command (scripts/run.sh) on a
# fresh Debian 12, from the command to the first answered scrape.
#
# The fresh machine is a debootstrap of bookworm (--variant=minbase: fewer
# packages than any Debian 12 install, so every package run.sh needs is
# fetched and installed), made once under ROOTFS and kept pristine: each run
# works in an overlay of it (a temporary upper layer) chrooted with /proc,
# /sys and /dev of this host, the repository cloned into it (git clone of the
# committed tree: what a user checks out). The daemon listens on loopback
# only; the host polls its /metrics every 0.2 s.
#
# Printed per run: seconds until the packages were installed (build/release
# appears: run.sh configures after install-deps.sh), until the binary was
# linked, until the first scrape answered 200; and how many packages apt
# installed. Apt's downloads come from the machine's Debian mirror, so the
# first phase depends on that mirror's speed: the table in
# docs/performance-history.md says which mirror and when.
#
# usage: bench/first_scrape.sh [RUNS]   (root; needs debootstrap and network
#        access to the Debian mirror)
# env:   ROOTFS=/var/tmp/bottleneckd-deb12 (made if missing)
#        MIRROR=http://deb.debian.org/debian  PORT=19858  LIMIT=900 (seconds
#        a run may take before it is called failed)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

RUNS=${1:-1}
ROOTFS=${ROOTFS:-/var/tmp/bottleneckd-deb12}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PORT=${PORT:-19858}
LIMIT=${LIMIT:-900}
[ "$(id -u)" -eq 0 ] || bench_die "needs root (debootstrap, overlay mounts, chroot)"
command -v debootstrap >/dev/null || bench_die "needs debootstrap (apt-get install debootstrap)"
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || bench_die "$SRC is not a git checkout"

if [ ! -x "$ROOTFS/bin/bash" ]; then
  echo "debootstrap --variant=minbase bookworm $ROOTFS $MIRROR (once)" >&2
  debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 ||
    bench_die "debootstrap failed: $(tail -n 3 "$ROOTFS.log")"
fi

BENCH_TMP=$(mktemp -d)
view=""
teardown() {
  if [ -n "$view" ]; then
    # The daemon and anything else started inside the view.
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$view" ] && kill -9 "$pid" 2>/dev/null
    done
    sleep 0.5
    for m in dev/pts dev sys proc; do umount -l "$view/$m" 2>/dev/null || true; done
    umount -l "$view" 2>/dev/null || true
    view=""
  fi
}
trap 'teardown; bench_cleanup' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

printf '%-4s %10s %10s %12s %9s\n' run packages built first_scrape installed
for run in $(seq 1 "$RUNS"); do
  dir="$BENCH_TMP/run$run"
  mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
  mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$dir/upper,workdir=$dir/work" "$dir/merged"
  view="$dir/merged"
  mount -t proc proc "$view/proc"
  mount --rbind /sys "$view/sys"
  mount --bind /dev "$view/dev"
  mount --bind /dev/pts "$view/dev/pts"
  cp /etc/resolv.conf "$view/etc/resolv.conf"
  git clone -q "$SRC" "$view/root/bottleneckd"
  before=$(chroot "$view" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed')

  start=$(now)
  chroot "$view" /bin/bash -c "cd /root/bottleneckd && exec scripts/run.sh --web.listen-address=127.0.0.1:$PORT" \
    >"$dir/run.log" 2>&1 &
  runner=$!
  disown "$runner"  # teardown kills it; no job report
  t_pkgs="" t_built="" t_scrape=""
  while [ -z "$t_scrape" ]; do
    [ -n "$t_pkgs" ] || [ ! -d "$view/root/bottleneckd/build/release" ] || t_pkgs=$(since "$start")
    [ -n "$t_built" ] || [ ! -x "$view/root/bottleneckd/build/release/bottleneckd" ] || t_built=$(since "$start")
    if curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/metrics" 2>/dev/null; then t_scrape=$(since "$start"); fi
    if ! kill -0 "$runner" 2>/dev/null; then
      tail -n 20 "$dir/run.log" >&2; bench_die "run $run: scripts/run.sh exited before a scrape answered"
    fi
    if [ "$(since "$start")" -gt "$LIMIT" ]; then
      tail -n 20 "$dir/run.log" >&2; bench_die "run $run: no scrape within ${LIMIT}s"
    fi
    sleep 0.2
  done
  after=$(chroot "$view" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed')
  printf '%-4s %9ss %9ss %11ss %9s\n' "$run" "$t_pkgs" "$t_built" "$t_scrape" "$((after - before))"
  teardown
done
