#!/usr/bin/env bash
# Issue 17's whole campaign through the real binary: every kind of bad input
# applied to EVERY file of a copy of the seed-box fixture (tests/fixtures/
# seed-box, modelled on the seed mails' box) at once, one kind per run of
# `--once`:
#   fifo      each file replaced by a FIFO nobody writes
#   garbage   each file holds "garbage", a control byte and invalid UTF-8
#   cut       each file loses its last byte (text ends mid-line, config short)
#   negative  each number in each text file negated
#   huge      /proc/interrupts, /proc/stat, /proc/softirqs and a counter 200 MB
#   loop      each sysfs link points at itself, class/net/* loop in pairs
#   perm000   each file mode 000, read as nobody (root would read it anyway)
# For each: no hang (30 s bound), no crash (exit 0), promtool parses the
# exposition, no negative value (but Tcp MaxConn's -1), and no series a bad
# file could have given. Where every file is unreadable (fifo, garbage,
# perm000) only what an empty tree exports (the daemon's own health and the
# config's figures) is left, plus the PCI topology's shape from its good
# directories and links, every fact unknown: IDs "", buses "unknown", no
# capacity or utilisation. huge: the four files' series are gone; loop:
# nothing from sysfs. cut and negative leave good values (PCI config
# bytes, lines without numbers): what remains is logged.
#
# usage: hostile_campaign_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=hostile_campaign_test
BIN=${1:?usage: hostile_campaign_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: hostile_campaign_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 300 "$@"
integ_init
integ_require_tools promtool

printf 'collectors:\n  irqtime: {mode: off}\n' >"$INTEG_TMP/c.yaml"
chmod 0644 "$INTEG_TMP/c.yaml"
# once TREE OUT [as-nobody]: --once over TREE; the exit status in $rc.
once() {
  local tree="$1" out="$2" run=()
  if [ "${3:-}" = nobody ] && [ "$(id -u)" -eq 0 ]; then run=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
  rc=0
  timeout 30 "${run[@]}" "$BIN" --config.file="$INTEG_TMP/c.yaml" --path.procfs="$tree/proc" \
    --path.sysfs="$tree/sys" --path.ethtool="$tree/ethtool" --path.state="$INTEG_TMP/state" \
    --once >"$out.prom" 2>"$out.log" || rc=$?
}
names() { grep -vE '^#' "$1" | sed -E 's/[{ ].*//' | sort -u; }

mkdir -p "$INTEG_TMP/empty/proc" "$INTEG_TMP/empty/sys" "$INTEG_TMP/empty/ethtool" "$INTEG_TMP/state"
chmod -R a+rX "$INTEG_TMP" && chmod 0777 "$INTEG_TMP/state"
once "$INTEG_TMP/empty" "$INTEG_TMP/empty-out"
[ "$rc" = 0 ] || integ_die "--once over an empty tree: exit $rc: $(tail -n 3 "$INTEG_TMP/empty-out.log")"
names "$INTEG_TMP/empty-out.prom" >"$INTEG_TMP/baseline.names"
integ_log "an empty tree exports $(wc -l <"$INTEG_TMP/baseline.names") metric names (the baseline)"

files() { find "$1/proc" "$1/sys" "$1/ethtool" -type f; }
SHAPE='bottleneckd_(pci_device_info|pci_link_info|pci_fact_missing|bus_assumption_info|bus_model_info)' 
for kind in fifo garbage cut negative huge loop perm000; do
  T="$INTEG_TMP/$kind"
  cp -a "$SRC/tests/fixtures/seed-box" "$T"
  case $kind in
    fifo) files "$T" | while read -r f; do rm "$f" && mkfifo "$f"; done ;;
    garbage) files "$T" | while read -r f; do printf 'garbage \001\377\n' >"$f"; done ;;
    cut) files "$T" | while read -r f; do [ -s "$f" ] && truncate -s -1 "$f"; done ;;
    negative)
      files "$T" | while read -r f; do
        [ "$(basename "$f")" = config ] || sed -i -E 's/(^|[^0-9A-Za-z.x-])([0-9]+)/\1-\2/g' "$f"
      done ;;
    huge)
      for f in proc/interrupts proc/stat proc/softirqs sys/class/net/em0/statistics/rx_packets; do
        truncate -s 200M "$(readlink -f "$T/$f")"
      done ;;
    loop)
      find "$T/sys" -type l | while read -r l; do ln -sfn "$(basename "$l")" "$l"; done
      ln -sfn em1 "$T/sys/class/net/em0"; ln -sfn em0 "$T/sys/class/net/em1" ;;
    perm000) files "$T" | while read -r f; do chmod 000 "$f"; done ;;
  esac
  find "$T" -type d -exec chmod a+rx {} +
  once "$T" "$INTEG_TMP/$kind-out" $([ "$kind" = perm000 ] && echo nobody)
  if [ "$rc" = 0 ]; then
    integ_pass "$kind: --once exit 0 (no hang, no crash)"
  else
    integ_fail "$kind: --once exit $rc: $(tail -n 3 "$INTEG_TMP/$kind-out.log")"
    continue
  fi
  P="$INTEG_TMP/$kind-out.prom"
  if out=$(promtool check metrics <"$P" 2>&1) || ! grep -qiE 'error parsing|text format parsing error' <<<"$out"; then
    integ_pass "$kind: promtool parses the exposition"
  else
    integ_fail "$kind: promtool: $out"
  fi
  # Tcp MaxConn is -1 on every Linux (no limit): the one negative a file holds.
  neg=$(grep -vE '^#' "$P" | grep -v 'statistic="MaxConn"' | awk '$NF ~ /^-/' | head -n 3)
  [ -z "$neg" ] && integ_pass "$kind: no negative value" || integ_fail "$kind: negative values: $neg"
  extra=$(names "$P" | comm -23 - "$INTEG_TMP/baseline.names")
  case $kind in
    fifo | garbage | perm000)
      # What is left is the topology's shape (directories and links, still
      # good) with every fact unknown: info series, no number from a file.
      odd=$(grep -vxE "$SHAPE" <<<"$extra" || true)
      [ -z "$odd" ] && integ_pass "$kind: beyond an empty tree's series only the topology's shape, facts unknown" ||
        integ_fail "$kind: series a bad file gave: $(echo $odd)"
      made_up=$(grep -E '^bottleneckd_pci_device_info' "$P" | grep -vE 'vendor_id="",device_id="",class_id=""' | head -n 2)
      [ -z "$made_up" ] && integ_pass "$kind: PCI IDs that could not be read are empty, not 0x0000" ||
        integ_fail "$kind: PCI IDs exported from bad files: $made_up"
      guessed=$(grep -E '^bottleneckd_pci_link_info' "$P" | grep -v 'bus="unknown",speed="unknown",width="unknown"' | head -n 2)
      [ -z "$guessed" ] && integ_pass "$kind: bus kinds that could not be read are unknown, not PCI 33/32" ||
        integ_fail "$kind: guessed bus links: $guessed"
      ;;
    huge)  # the four huge files' series are gone; the rest of the tree is good
      for series in bottleneckd_cpu_seconds_total bottleneckd_softirqs_total bottleneckd_interrupts_total \
        'bottleneckd_network_receive_packets_total{interface="em0"}'; do
        grep -qF "$series" "$P" && integ_fail "huge: $series exported from a 200 MB file" ||
          integ_pass "huge: no $series"
      done ;;
    loop)  # every sysfs link loops: nothing from sysfs (the network and the bus); proc stays
      # (the backlog and socket rungs are host-wide, from /proc)
      from_sys=$(grep -E '^bottleneckd_(network|pci|bus)_' "$P" | grep -vE '^bottleneckd_network_drops_total\{rung="(backlog|socket)"\}' |
        sed -E 's/[{ ].*//' | sort -u || true)
      [ -z "$from_sys" ] && integ_pass "loop: no series through a looping link" ||
        integ_fail "loop: series through looping links: $(echo $from_sys)"
      grep -q '^bottleneckd_cpu_seconds_total' "$P" && integ_pass "loop: /proc is still read" ||
        integ_fail "loop: /proc series missing too" ;;
    *) integ_log "$kind: series beyond the baseline (from what the files still hold): $(echo $extra)" ;;
  esac
  crashes=$(grep -ciE 'panic|terminate called|sanitizer|segmentation' "$INTEG_TMP/$kind-out.log" || true)
  [ "$crashes" = 0 ] || integ_fail "$kind: the log reports a crash"
done

integ_finish
