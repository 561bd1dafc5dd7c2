#!/usr/bin/env bash
# Records a fixture tree of the running machine for the collectors' tests:
#   OUT/proc     the /proc files the collectors read
#   OUT/sys      the /sys files and symlinks they read (symlinks keep their
#                relative targets, their target directories are recreated)
#   OUT/ethtool  one `ethtool -S IF` output per interface that has driver stats
#   OUT/README.md  the facts of the recording (kernel, CPU, devices, target pid)
#
# Usage: scripts/record-fixture.sh [--pid PID] OUT
#   --pid PID  the process recorded for the threads collector (PID/comm and
#              PID/task/*/stat). Default: a `sleep` started by this script.
# Run as root: PCI config space beyond 64 bytes is readable by root only.
# Files are copied byte for byte (cat), never edited.
set -euo pipefail

usage() { echo "usage: $0 [--pid PID] OUT" >&2; exit 2; }

TARGET_PID=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pid) [[ $# -ge 2 ]] || usage; TARGET_PID="$2"; shift 2 ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) break ;;
  esac
done
[[ $# -eq 1 ]] || usage
OUT="$1"
PROC=/proc
SYS=/sys

if [[ -e "$OUT/proc" || -e "$OUT/sys" || -e "$OUT/ethtool" ]]; then
  echo "$0: $OUT already holds a fixture; remove it first" >&2
  exit 1
fi
[[ $(id -u) -eq 0 ]] || echo "$0: warning: not root, PCI config files will be 64 bytes" >&2
mkdir -p "$OUT/proc" "$OUT/sys" "$OUT/ethtool"
OUT="$(cd "$OUT" && pwd)"

SLEEP_PID=""
cleanup() { if [[ -n "$SLEEP_PID" ]]; then kill "$SLEEP_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT
if [[ -z "$TARGET_PID" ]]; then
  sleep 3600 &
  SLEEP_PID=$!
  TARGET_PID=$SLEEP_PID
  sleep 0.2  # let the child exec sleep, so its comm is "sleep"
fi

# copy_file SRC DST: byte copy of a kernel file (procfs/sysfs sizes lie, so cat).
copy_file() {
  mkdir -p "$(dirname "$2")"
  cat "$1" > "$2"
}

# copy_proc REL: /proc/REL -> OUT/proc/REL, skipped when absent.
copy_proc() {
  if [[ -r "$PROC/$1" ]]; then copy_file "$PROC/$1" "$OUT/proc/$1"; fi
}

# sys_rel ABS: path of ABS (under /sys, symlinks resolved) relative to /sys.
sys_rel() {
  local abs
  abs="$(readlink -f "$1")"
  echo "${abs#"$SYS"/}"
}

# copy_link REL: recreates the symlink /sys/REL under OUT/sys with the same
# (relative) target, and creates the target directory so the link resolves.
copy_link() {
  local rel="$1" target resolved
  target="$(readlink "$SYS/$rel")"
  mkdir -p "$(dirname "$OUT/sys/$rel")"
  ln -sfn "$target" "$OUT/sys/$rel"
  resolved="$(sys_rel "$SYS/$rel")"
  mkdir -p "$OUT/sys/$resolved"
}

# copy_attr DIR_REL NAME: /sys/DIR_REL/NAME (DIR_REL already resolved) if readable.
copy_attr() {
  if [[ -f "$SYS/$1/$2" && -r "$SYS/$1/$2" ]]; then
    copy_file "$SYS/$1/$2" "$OUT/sys/$1/$2" 2>/dev/null || rm -f "$OUT/sys/$1/$2"
  fi
}

# ---- proc ----
for f in stat pressure/cpu interrupts softirqs net/softnet_stat net/snmp net/netstat; do
  copy_proc "$f"
done
copy_proc "$TARGET_PID/comm"
for task in "$PROC/$TARGET_PID"/task/*; do
  copy_proc "$TARGET_PID/task/$(basename "$task")/stat"
done
TARGET_COMM="$(cat "$OUT/proc/$TARGET_PID/comm" 2>/dev/null || echo '?')"

# ---- sys: network interfaces ----
IFACES=()
for link in "$SYS"/class/net/*; do
  ifname="$(basename "$link")"
  IFACES+=("$ifname")
  copy_link "class/net/$ifname"
  dir="$(sys_rel "$link")"
  copy_attr "$dir" ifindex
  copy_attr "$dir" operstate
  for stat in "$SYS/$dir"/statistics/*; do
    copy_attr "$dir/statistics" "$(basename "$stat")"
  done
  if [[ -L "$SYS/$dir/device" ]]; then
    copy_link "$dir/device"
    devdir="$(sys_rel "$SYS/$dir/device")"
    if [[ -L "$SYS/$devdir/driver" ]]; then copy_link "$devdir/driver"; fi
  fi
done

# ---- sys: PCI devices ----
PCI_ATTRS=(irq vendor device class subsystem_vendor subsystem_device numa_node
           current_link_speed current_link_width max_link_speed max_link_width config
           aer_dev_correctable aer_dev_nonfatal aer_dev_fatal)
PCI_DEVS=()
for link in "$SYS"/bus/pci/devices/*; do
  [[ -e "$link" ]] || continue
  addr="$(basename "$link")"
  PCI_DEVS+=("$addr")
  copy_link "bus/pci/devices/$addr"
  dir="$(sys_rel "$link")"
  for a in "${PCI_ATTRS[@]}"; do copy_attr "$dir" "$a"; done
  if [[ -d "$SYS/$dir/msi_irqs" ]]; then
    mkdir -p "$OUT/sys/$dir/msi_irqs"
    for m in "$SYS/$dir"/msi_irqs/*; do
      if [[ -e "$m" ]]; then copy_attr "$dir/msi_irqs" "$(basename "$m")"; fi
    done
  fi
  if [[ -L "$SYS/$dir/driver" ]]; then copy_link "$dir/driver"; fi
done

# ---- ethtool ----
ETHTOOL_IFS=()
if command -v ethtool >/dev/null 2>&1; then
  for ifname in "${IFACES[@]}"; do
    if ethtool -S "$ifname" > "$OUT/ethtool/$ifname" 2>/dev/null; then
      ETHTOOL_IFS+=("$ifname")
    else
      rm -f "$OUT/ethtool/$ifname"
    fi
  done
else
  echo "$0: ethtool not installed, ethtool/ left empty" >&2
fi

# Git does not keep empty directories: mark the ones that are only symlink targets
# (bus/*/drivers/DRIVER) so the links still resolve after a checkout.
find "$OUT" -type d -empty -exec touch {}/.keep \;

# ---- README (facts only; add what the scenario models by hand) ----
{
  echo "# Fixture recorded from $(uname -n)"
  echo
  echo "Recorded by \`scripts/record-fixture.sh\` on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
  echo
  echo "- kernel: \`$(uname -r)\` ($(uname -m))"
  echo "- CPU: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(grep -c '^processor' /proc/cpuinfo) online CPUs"
  virt="$(systemd-detect-virt 2>/dev/null || true)"
  hv="no"
  if grep -qw hypervisor /proc/cpuinfo; then hv="yes"; fi
  echo "- virtualisation: systemd-detect-virt says \`${virt:-n/a}\`; CPU flag \`hypervisor\`: $hv"
  echo "- interfaces: ${IFACES[*]}"
  for ifname in "${IFACES[@]}"; do
    drv=""
    if [[ -L "$SYS/class/net/$ifname/device/driver" ]]; then
      drv="$(basename "$(readlink "$SYS/class/net/$ifname/device/driver")")"
    fi
    echo "  - $ifname -> \`$(readlink "$SYS/class/net/$ifname")\`${drv:+, driver $drv}"
  done
  echo "- PCI devices:"
  for addr in "${PCI_DEVS[@]}"; do
    echo "  - $addr $(cat "$SYS/bus/pci/devices/$addr/vendor"):$(cat "$SYS/bus/pci/devices/$addr/device") class $(cat "$SYS/bus/pci/devices/$addr/class") ($(lspci -s "$addr" 2>/dev/null | cut -d' ' -f2- || true))"
  done
  echo "- threads target: pid $TARGET_PID, comm \`$TARGET_COMM\`, $(find "$OUT/proc/$TARGET_PID/task" -mindepth 1 -maxdepth 1 -type d | wc -l) thread(s)"
  if [[ ${#ETHTOOL_IFS[@]} -gt 0 ]]; then
    echo "- ethtool -S recorded for: ${ETHTOOL_IFS[*]}"
  else
    echo "- ethtool -S: no interface returned statistics (ethtool/ is empty)"
  fi
} > "$OUT/README.md"

echo "recorded into $OUT (target pid $TARGET_PID '$TARGET_COMM')"
