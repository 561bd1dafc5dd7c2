#!/usr/bin/env bash
# Offline capture analysis side by side (issue 6, docs/performance-history.md
# "Capture"): one capture file of PACKETS frames of UDP echo traffic
# (bench/make_capture.cc: 256 flows, ~1 % of requests unanswered, 64/512/1024
# byte payloads, snap length 128) read by
#   bottleneckd pcap FILE --format json
#   tcpdump -r FILE -w /dev/null
#   tshark -r FILE -q -z conv,udp
# ROUNDS times, alternating (the order rotates each round), each under
# /usr/bin/time: wall time, user+sys CPU, max RSS; packets/s = frames / wall.
# The file is read once before timing, so every tool reads it from the page
# cache. tshark may get a smaller file of TSHARK_PACKETS frames (same generator,
# same seed); its packets/s is then over that file, and the table says so.
# bottleneckd's counts (frames, requests, replies, paired, lost, waiting at the
# end, unmatched replies) are checked against what make_capture wrote: a
# mismatch is printed loudly (and makes the exit status 3). Memory flat:
# bottleneckd also reads a SMALL_PACKETS file; its max RSS is shown beside the
# big file's.
# Nothing here passes or fails on a time. Markdown on stdout (and in $OUT).
#
# usage: bench/pcap_compare.sh [BOTTLENECKD [MAKE_CAPTURE]]
# env:   BIN, MAKE_CAPTURE (instead of the arguments; default build/bench/...)
#        PACKETS=10000000 SMALL_PACKETS=1000000 TSHARK_PACKETS=$PACKETS
#        RATE=500000 (frames/s of the capture's clock) ROUNDS=3 TSHARK_ROUNDS=$ROUNDS
#        CAPDIR=DIR (where the files go; default a temporary directory under
#        $RESULTS or /tmp) KEEP=1 (keep the files) OUT=FILE
#        BASELINE=BINARY (another bottleneckd, e.g. an older build, timed in the
#        same rounds on the big file: a before/after in one run)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(dirname "$HERE")
BIN=${1:-${BIN:-$SRC/build/bench/bottleneckd}}
MAKE_CAPTURE=${2:-${MAKE_CAPTURE:-$(dirname "$BIN")/bench/make_capture}}
PACKETS=${PACKETS:-10000000}
SMALL_PACKETS=${SMALL_PACKETS:-1000000}
TSHARK_PACKETS=${TSHARK_PACKETS:-$PACKETS}
RATE=${RATE:-500000}
ROUNDS=${ROUNDS:-3}
TSHARK_ROUNDS=${TSHARK_ROUNDS:-$ROUNDS}
KEEP=${KEEP:-0}
OUT=${OUT:-}
BASELINE=${BASELINE:-}

die() { echo "pcap_compare.sh: $*" >&2; exit 1; }
say() { echo "pcap_compare: $*" >&2; }
[[ -x "$BIN" ]] || die "no bottleneckd binary at $BIN (bench/run.sh STEPS=build)"
[[ -x "$MAKE_CAPTURE" ]] || die "no make_capture at $MAKE_CAPTURE (bench/run.sh STEPS=build)"
[[ -z "$BASELINE" || -x "$BASELINE" ]] || die "no baseline binary at $BASELINE"
for t in tcpdump tshark /usr/bin/time python3; do
  command -v "$t" >/dev/null || die "$t missing (scripts/install-deps.sh)"
done

base=${CAPDIR:-${RESULTS:-${TMPDIR:-/tmp}}}
mkdir -p "$base"
TMP=$(mktemp -d "$base/pcap-compare-XXXXXX")
cleanup() {
  if [[ "$KEEP" == 1 ]]; then
    say "files kept in $TMP"
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ~137 bytes a record (16-byte header + 106-128 captured bytes); refuse to
# fill the disk.
need_kb=$(( (PACKETS + SMALL_PACKETS + (TSHARK_PACKETS == PACKETS || TSHARK_PACKETS == SMALL_PACKETS ? 0 : TSHARK_PACKETS)) * 140 / 1024 ))
free_kb=$(df -Pk "$TMP" | awk 'NR == 2 {print $4}')
(( free_kb > need_kb + 1048576 )) || die "needs $((need_kb / 1024)) MB in $TMP, $((free_kb / 1024)) MB free"

# make FILE N: writes the capture and its counts (FILE.counts).
make() {
  local t0 t1
  t0=$(date +%s.%N)
  "$MAKE_CAPTURE" --out "$1" --packets "$2" --rate "$RATE" >"$1.counts"
  t1=$(date +%s.%N)
  say "wrote $1: $2 frames, $(du -m "$1" | cut -f1) MB in $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s"
}
BIG=$TMP/echo-$PACKETS.pcap
SMALL=$TMP/echo-$SMALL_PACKETS.pcap
make "$BIG" "$PACKETS"
make "$SMALL" "$SMALL_PACKETS"
if [[ "$TSHARK_PACKETS" == "$PACKETS" ]]; then
  TSHARK_FILE=$BIG
elif [[ "$TSHARK_PACKETS" == "$SMALL_PACKETS" ]]; then
  TSHARK_FILE=$SMALL
else
  TSHARK_FILE=$TMP/echo-$TSHARK_PACKETS.pcap
  make "$TSHARK_FILE" "$TSHARK_PACKETS"
fi
count() { sed -n "s/^$2=//p" "$1.counts"; }

# Into the page cache, once.
cat "$BIG" "$SMALL" "$TSHARK_FILE" >/dev/null

# ---- correctness: bottleneckd's counts against the generator's ----
MISMATCH=0
check() {
  local file=$1 json=$TMP/check.json
  "$BIN" pcap "$file" --format json >"$json" || true  # the JSON says what went wrong
  python3 - "$json" "$file.counts" <<'PY' || MISMATCH=1
import json, sys
d = json.load(open(sys.argv[1]))["files"][0]
c = dict(l.strip().split("=", 1) for l in open(sys.argv[2]) if "=" in l)
n = {k: int(v) for k, v in c.items() if v.isdigit()}
bad = []
def eq(name, got, want):
    if got != want: bad.append("%s: bottleneckd %s, generator %s" % (name, got, want))
eq("frames", d["packets"], n["packets"])
eq("bytes", d["bytes"], n["bytes"])
eq("requests", d["requests"], n["requests"])
eq("replies", d["replies"], n["replies"])
eq("paired", d["paired"], n["replies"])
eq("unmatched replies", d["unmatched_replies"], 0)
eq("lost + waiting", d["lost"] + d["outstanding_at_end"], n["unanswered"])
if abs(d["lost"] - n["lost"]) > n["lost_ambiguous"]:
    bad.append("lost: bottleneckd %d, generator %d (+-%d within 1 us of the timeout)"
               % (d["lost"], n["lost"], n["lost_ambiguous"]))
eq("error", d["error"], None)
if bad:
    print("pcap_compare: *** MISMATCH in %s ***" % c["file"], file=sys.stderr)
    for b in bad: print("pcap_compare: ***   " + b, file=sys.stderr)
    sys.exit(1)
print("pcap_compare: counts OK for %s: %d frames, %d requests, %d replies (all paired), %d lost, %d waiting at the end"
      % (c["file"], d["packets"], d["requests"], d["replies"], d["lost"], d["outstanding_at_end"]), file=sys.stderr)
PY
}
check "$BIG"
check "$SMALL"

# ---- timing ----
# run NAME FRAMES CMD...: one timed run; appends "name frames wall user sys maxrss_kb load1" to $TMP/runs.
run() {
  local name=$1 frames=$2 load
  shift 2
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
    { cat "$TMP/$name.err" >&2; die "$name failed"; }
  echo "$name $frames $(cat "$TMP/time") $load" >>"$TMP/runs"
  say "$name: $(cat "$TMP/time") (wall user sys maxrss_kB), load $load"
}
tools=(bottleneckd tcpdump tshark)
: >"$TMP/runs"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS || r < TSHARK_ROUNDS; r++)); do
  for ((i = 0; i < 3; i++)); do
    t=${tools[$(((i + r) % 3))]}
    case $t in
      bottleneckd)
        ((r < ROUNDS)) || continue
        run bottleneckd "$PACKETS" "$BIN" pcap "$BIG" --format json
        run bottleneckd-small "$SMALL_PACKETS" "$BIN" pcap "$SMALL" --format json
        [[ -z "$BASELINE" ]] || run baseline "$PACKETS" "$BASELINE" pcap "$BIG" --format json ;;
      tcpdump)
        ((r < ROUNDS)) || continue
        run tcpdump "$PACKETS" tcpdump -r "$BIG" -w /dev/null ;;
      tshark)
        ((r < TSHARK_ROUNDS)) || continue
        run tshark "$TSHARK_PACKETS" tshark -r "$TSHARK_FILE" -q -z conv,udp ;;
    esac
  done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
# tshark's conversation table must list every flow of the capture.
TSHARK_CONVS=""
if [[ -f "$TMP/tshark.out" ]]; then
  TSHARK_CONVS=$(grep -cE '^[0-9.]+:[0-9]+ +<-> +[0-9.]+:[0-9]+' "$TMP/tshark.out" || true)
fi

{
  echo "Capture: $PACKETS frames ($(du -m "$BIG" | cut -f1) MB; $(count "$BIG" requests) requests, $(count "$BIG" replies) replies," \
    "$(count "$BIG" unanswered) unanswered; $(count "$BIG" flows) flows; $(count "$BIG" duration_seconds) s at $RATE frames/s," \
    "$(count "$BIG" precision) timestamps, snap length 128), read from the page cache."
  echo "$ROUNDS rounds (tshark $TSHARK_ROUNDS), order rotating; median (min-max) of the rounds." \
    "Load average $LOAD_START at the start, $LOAD_END at the end; $(nproc) CPUs."
  if [[ -n "$TSHARK_CONVS" ]]; then
    [[ "$TSHARK_FILE" == "$BIG" ]] || echo "tshark read a $TSHARK_PACKETS-frame file made by the same generator (the full file takes too long)."
    echo "tshark listed $TSHARK_CONVS UDP conversations ($(count "$TSHARK_FILE" flows) in the file)."
  fi
  [[ -z "$BASELINE" ]] || echo "baseline: \`$BASELINE\` (\`$("$BASELINE" --version 2>&1 | head -n1)\`) on the big file."
  [[ $MISMATCH == 0 ]] && echo "bottleneckd's counts match the generator's (frames, bytes, requests, replies, all paired, lost, waiting)." ||
    echo "**MISMATCH: bottleneckd's counts differ from the generator's (see stderr).**"
  echo
  python3 - "$TMP/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, frames, wall, user, sys_, rss, load = line.split()
    r = runs.setdefault(name, {"frames": int(frames), "wall": [], "cpu": [], "rss": [], "load": []})
    r["wall"].append(float(wall)); r["cpu"].append(float(user) + float(sys_))
    r["rss"].append(int(rss)); r["load"].append(float(load))
def med(v): return statistics.median(v)
def rng(v, f): return "%s (%s-%s)" % (f % med(v), f % min(v), f % max(v))
pps = {n: r["frames"] / med(r["wall"]) for n, r in runs.items()}
cpu_pps = {n: r["frames"] / med(r["cpu"]) for n, r in runs.items()}
print("| tool | frames | wall s | user+sys CPU s | max RSS MB | frames/s (wall) | frames per CPU-second | bottleneckd's frames/s over this tool's (wall / CPU) | load at start |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
labels = {"bottleneckd": "`bottleneckd pcap --format json`", "bottleneckd-small": "`bottleneckd pcap --format json` (small file)",
          "baseline": "baseline `bottleneckd pcap --format json`",
          "tcpdump": "`tcpdump -r FILE -w /dev/null`", "tshark": "`tshark -r FILE -q -z conv,udp`"}
for n in ["bottleneckd", "bottleneckd-small", "baseline", "tcpdump", "tshark"]:
    if n not in runs: continue
    r = runs[n]
    ratio = "%.2f / %.2f" % (pps["bottleneckd"] / pps[n], cpu_pps["bottleneckd"] / cpu_pps[n]) if n in ("baseline", "tcpdump", "tshark") else "-"
    print("| %s | %d | %s | %s | %s | %.0f | %.0f | %s | %s |" % (
        labels[n], r["frames"], rng(r["wall"], "%.2f"), rng(r["cpu"], "%.2f"),
        rng([x / 1024 for x in r["rss"]], "%.1f"), pps[n], cpu_pps[n], ratio, rng(r["load"], "%.2f")))
b, s = runs.get("bottleneckd"), runs.get("bottleneckd-small")
if b and s:
    print()
    print("Memory flat: bottleneckd's max RSS %.1f MB on %d frames, %.1f MB on %d frames (ratio %.2f)." % (
        med(b["rss"]) / 1024, b["frames"], med(s["rss"]) / 1024, s["frames"], med(b["rss"]) / med(s["rss"])))
PY
} | tee "${OUT:-/dev/null}"
[[ $MISMATCH == 0 ]] || { echo "pcap_compare: *** bottleneckd's counts do not match the generator's ***" >&2; exit 3; }
