#!/usr/bin/env bash
# `bottleneckd record` on this live host, traced by strace: every /proc and
# /sys file the recorder's ticks read (open, read or pread, kept descriptors
# included: strace -y names each descriptor's file) is in the recording (a
# sample or static/). The kernel's view, not the recorder's own: a read that
# goes around the recording door (kept /proc descriptors once did, and every
# live recording lacked proc/) fails here whatever path it took.
#
# Left out, each read outside the ticks and not part of what replays:
# glibc's CPU count (/sys/devices/system/cpu/online, possible), the
# recording's description (/proc/sys/kernel/hostname, osrelease: in
# recording.yaml), and the process's own start-up reads (/proc/self/*
# before the first tick: limits, the executable's maps).
#
# usage: record_reads_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=record_reads_test
BIN=${1:?usage: record_reads_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: record_reads_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
integ_require_tools strace python3
# The collectors' reads only: the eBPF sources' own (kallsyms, the profiled
# processes' maps and binaries) are not replayed, their readings are
# (record_sources_test.sh).
printf 'collectors:\n  irqtime:\n    mode: "off"\n  profile:\n    mode: "off"\n' >"$INTEG_TMP/rec.yaml"
if ! strace -f -qq -y -e trace=openat,read,pread64 -o "$INTEG_TMP/trace" \
  "$BIN" record --out "$INTEG_TMP/rec" --duration 2s --config.file="$INTEG_TMP/rec.yaml" >"$INTEG_TMP/out" 2>&1; then
  integ_die "record under strace failed: $(tail -n 3 "$INTEG_TMP/out")"
fi
python3 - "$INTEG_TMP/trace" "$INTEG_TMP/rec" >"$INTEG_TMP/check" <<'PY'
import os, re, sys
trace, rec = sys.argv[1], sys.argv[2]
# read(5</proc/stat>, ...) / pread64(5</proc/12/stat>, ...): the file behind each read.
read = re.compile(r'^(\d+)\s+(?:read|pread64)\(\d+<(/(?:proc|sys)/[^>]*)>')
pids, files = set(), set()
for line in open(trace, encoding="utf-8", errors="replace"):
    m = read.match(line)
    if m:
        pids.add(m.group(1))
        files.add(m.group(2))
skip = re.compile(r'^/sys/devices/system/cpu/(online|possible)$|^/proc/sys/kernel/(hostname|osrelease)$')
recorded = set()
for root, dirs, names in os.walk(rec):
    for n in names:
        p = os.path.join(root, n)
        rel = os.path.relpath(p, rec).split(os.sep)
        # samples/NNNNNN/proc/... or static/proc/...
        if rel[0] == "samples" and len(rel) > 3:
            recorded.add("/" + "/".join(rel[2:]))
        elif rel[0] == "static" and len(rel) > 2:
            recorded.add("/" + "/".join(rel[1:]))
# The recorder's own pid in strace -y's resolved paths is /proc/self in the recording.
own = {p for p in pids}
missing, checked = [], 0
for f in sorted(files):
    if skip.match(f):
        continue
    g = re.sub(r'^/proc/(\d+)/', lambda m: "/proc/self/" if m.group(1) in own else m.group(0), f)
    if g.startswith("/proc/self/") and g[len("/proc/self/"):] in ("maps", "limits", "status", "cmdline", "exe"):
        continue
    checked += 1
    # A path read through a link lands where the link points: the recording keeps both.
    # A path through a link (/proc/net -> self/net -> PID/net) is kept with
    # its links: the file lies under the recorder's pid in the recording too.
    if f not in recorded and g not in recorded:
        missing.append(f)
print("files %d checked %d missing %d" % (len(files), checked, len(missing)))
for f in missing[:20]:
    print("missing " + f)
PY
read -r _ total _ checked _ nmissing <"$INTEG_TMP/check"
if [ "${checked:-0}" -ge 5 ] && [ "${nmissing:-1}" = 0 ]; then
  integ_pass "record: every one of the $checked /proc and /sys files its ticks read is in the recording ($total read in all)"
else
  integ_fail "record: files read but not recorded: $(tail -n +2 "$INTEG_TMP/check" | tr '\n' ' ') ($(head -n 1 "$INTEG_TMP/check"))"
fi
# The check saw the tables a tick reads (/proc/net/snmp resolves to /proc/PID/net/snmp).
for table in stat interrupts softirqs '[0-9]+/net/snmp'; do
  grep -qE "^/proc/$table\$" <(grep -oE '<(/proc/[^>]*)>' "$INTEG_TMP/trace" | tr -d '<>' | sort -u) ||
    integ_fail "the trace shows no read of /proc/$table: the check above read nothing of it"
done
integ_finish
