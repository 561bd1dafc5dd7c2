#!/usr/bin/env bash
# The generated bottleneckd(8) and bash completion (cmd/manpage.h) against
# the real binary's --help: every flag `bottleneckd --help` and each
# `bottleneckd CMD --help` lists is in the page as man(1) renders it (OPTIONS
# or COLLECTORS), every command is in COMMANDS, groff and man report no
# warnings; the completion script loads in bash and, driven through
# COMP_WORDS/COMP_CWORD, completes commands, each command's own flags (and
# only those: no top-level flag after `record`), --format's and --log.level's
# values, files for FILE/PATH values, and leaves the words after `run ... --`
# to the command's completion.
#
# usage: manpage_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=manpage_test
BIN=${1:?usage: manpage_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: manpage_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 120 "$@"
integ_init
command -v man >/dev/null || integ_die "man missing: install the Debian package man-db (scripts/install-deps.sh)"
command -v groff >/dev/null || integ_die "groff missing: install the Debian package groff-base (scripts/install-deps.sh)"

# Both are rendered beside the binary by the build (target bottleneckd_docs, part of all).
BUILD="$(dirname "$BIN")"
PAGE="$BUILD/bottleneckd.8"
COMP="$BUILD/bottleneckd.bash-completion"
[ -s "$PAGE" ] || integ_die "$PAGE missing: build the target bottleneckd_docs"
[ -s "$COMP" ] || integ_die "$COMP missing: build the target bottleneckd_docs"

# Every --word of a help text, one a line (a trailing '.' is the sentence's).
flags_of() { grep -o -- '--[A-Za-z][A-Za-z0-9._-]*' | sed 's/[.-]*$//' | sort -u; }
# The first word of each line of the --help section headed $1 (a prefix).
section_words() { awk -v h="$1" 'index($0, h) == 1 {on = 1; next} on && /^  / {print $1; next} on {exit}'; }
COMMANDS=$("$BIN" --help | section_words Subcommands:)
[ -n "$COMMANDS" ] || integ_die "no Subcommands in bottleneckd --help"

TEXT="$INTEG_TMP/page.txt"
MANWIDTH=200 man -l "$PAGE" 2>"$INTEG_TMP/man.err" | col -bx >"$TEXT"
[ -s "$TEXT" ] || integ_die "man -l $PAGE printed nothing: $(cat "$INTEG_TMP/man.err")"
# A section of the rendered page: from its heading to the next one.
section() { awk -v s="$1" '/^[A-Z][A-Z ]*$/ {on = ($0 == s); next} on' "$TEXT"; }
LISTED="$INTEG_TMP/listed.txt"
{ section OPTIONS; section COLLECTORS; } >"$LISTED"

for cmd in "" $COMMANDS; do
  # shellcheck disable=SC2086 # "" is the top level
  help=$("$BIN" $cmd --help) || integ_fail "bottleneckd $cmd --help exited $?"
  missing=()
  n=0
  while read -r flag; do
    n=$((n + 1))
    grep -qF -- "$flag" "$LISTED" || missing+=("$flag")
  done < <(flags_of <<<"$help")
  if [ "${#missing[@]}" -eq 0 ] && [ "$n" -gt 0 ]; then
    integ_pass "the $n flags of 'bottleneckd ${cmd:+$cmd }--help' are in the man page's OPTIONS or COLLECTORS"
  else
    integ_fail "'bottleneckd ${cmd:+$cmd }--help' lists ${missing[*]:-no flags}, not in the man page"
  fi
done
for cmd in $COMMANDS; do
  if section COMMANDS | grep -qE "^ +$cmd( |$)"; then
    integ_pass "command $cmd is in COMMANDS"
  else
    integ_fail "command $cmd is not in the man page's COMMANDS"
  fi
done
for s in NAME SYNOPSIS DESCRIPTION FILES SIGNALS "EXIT STATUS" ENVIRONMENT "SEE ALSO"; do
  if grep -qx "$s" "$TEXT"; then integ_pass "section $s"; else integ_fail "no section $s"; fi
done
version=$("$BIN" --version | awk '{print $2}')
if grep -q "bottleneckd $version" "$TEXT"; then
  integ_pass "the page's footer has the binary's version $version"
else
  integ_fail "the page does not name version $version: $(tail -n 1 "$TEXT")"
fi

warnings=$(groff -man -ww -z "$PAGE" 2>&1)
if [ -z "$warnings" ]; then integ_pass "groff -man -ww: no warnings"; else integ_fail "groff -man -ww: $warnings"; fi
warnings=$(MANWIDTH=80 man --warnings -l "$PAGE" 2>&1 >/dev/null)
if [ -z "$warnings" ]; then integ_pass "man --warnings: no warnings"; else integ_fail "man --warnings: $warnings"; fi

# --- the completion ---
if out=$(bash --norc --noprofile -c '. "$1" && complete -p bottleneckd' _ "$COMP" 2>&1) && [ -n "$out" ]; then
  integ_pass "the completion loads in bash: $out"
else
  integ_fail "the completion does not load: $out"
fi
# offers [--bash-completion] WORD...: what the script offers for the last
# word, one a line, sorted; with --bash-completion, bash-completion is loaded.
offers() {
  local lib=/dev/null
  if [ "$1" = --bash-completion ]; then lib=/usr/share/bash-completion/bash_completion; shift; fi
  bash --norc --noprofile -c '
    lib=$1 comp=$2; shift 2
    . "$lib"; . "$comp"
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _bottleneckd bottleneckd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$lib" "$COMP" "$@" 2>&1 | sed '/^$/d' | sort
}
# expect DESCRIPTION WANT WORD...: the offers are exactly WANT (words, any order).
expect() {
  local what=$1 want got
  want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort)
  shift 2
  got=$(offers "$@")
  if [ "$got" = "$want" ]; then integ_pass "$what"; else integ_fail "$what: got [${got//$'\n'/ }], want [${want//$'\n'/ }]"; fi
}
expect "'bottleneckd pc' completes to pcap" "pcap" bottleneckd pc
expect "'bottleneckd ' offers the commands, report and replay among them" "$COMMANDS report replay" bottleneckd ""
expect "'bottleneckd rep' completes to report and replay" "report replay" bottleneckd rep
expect "'bottleneckd report --ru' completes to --run" "--run" bottleneckd report --ru
expect "'bottleneckd --form' completes to --format" "--format" bottleneckd --form
# One --format for the report and pcap: folded is offered to both (the
# completion goes by the flag) and refused by pcap with its usage line.
expect "'bottleneckd report --format ' offers text json html folded folded-offcpu" "text json html folded folded-offcpu" bottleneckd report --format ""
expect "'bottleneckd pcap --format=j' (one word) completes to --format=json" "--format=json" bottleneckd pcap --format=j
expect "'bottleneckd pcap --format = j' (split at =) completes to json" "json" bottleneckd pcap --format = j
expect "'bottleneckd --log.level ' offers the levels" "debug info warn error" bottleneckd --log.level ""
expect "'bottleneckd --log.level w' completes to warn" "warn" bottleneckd --log.level w
expect "'bottleneckd record --out DIR --on' offers nothing (--once is the top level's)" "" \
  bottleneckd record --out /tmp --on
touch "$INTEG_TMP/conf-a.yaml" "$INTEG_TMP/conf-b.yaml"
mkdir "$INTEG_TMP/rec-dir"
expect "'--config.file PATH' completes files" "$INTEG_TMP/conf-a.yaml $INTEG_TMP/conf-b.yaml" \
  bottleneckd --config.file "$INTEG_TMP/conf"
expect "'record --out DIR' completes directories" "$INTEG_TMP/rec-dir" bottleneckd record --out "$INTEG_TMP/re"
expect "'replay DIR' completes directories" "$INTEG_TMP/rec-dir" bottleneckd replay "$INTEG_TMP/re"
expect "'pcap FILE' completes files" "$INTEG_TMP/conf-a.yaml $INTEG_TMP/conf-b.yaml" bottleneckd pcap "$INTEG_TMP/conf"
expect "'bottleneckd run -- --o' offers none of bottleneckd's flags" "" bottleneckd run -- --o
expect "'bottleneckd pcap --' offers no CMD (-- is run's)" "" bottleneckd pcap -- ""
got=$(offers bottleneckd run -- ech)
if grep -qx echo <<<"$got"; then integ_pass "'run -- ech' completes commands"; else integ_fail "'run -- ech': $got"; fi
if [ -r /usr/share/bash-completion/bash_completion ]; then
  got=$(offers --bash-completion bottleneckd run --name x -- ech)
  if grep -qx echo <<<"$got" && ! grep -q -- '^--' <<<"$got"; then
    integ_pass "with bash-completion, 'run --name x -- ech' goes to _command_offset"
  else
    integ_fail "with bash-completion, 'run --name x -- ech': $got"
  fi
fi

# Each command's flags are exactly the ones its --help lists (the collector
# switches, listed by name in the footer, included).
collectors=$("$BIN" --help | section_words 'Collectors (')
for cmd in "" $COMMANDS; do
  # shellcheck disable=SC2086
  help=$("$BIN" $cmd --help)
  # The option lines' flags: "  --path.procfs DIR   help", "  -h,--help   help".
  want=$(awk '/^  -/ {print $1}' <<<"$help" | tr ',' '\n' | grep -- '^--')
  if grep -q '^Collectors (' <<<"$help"; then
    want+=$'\n'$(for c in $collectors; do printf -- '--collector.%s\n--no-collector.%s\n' "$c" "$c"; done)
  fi
  want=$(sed '/^$/d' <<<"$want" | sort -u)
  # shellcheck disable=SC2086
  got=$(offers bottleneckd $cmd -)
  if [ "$got" = "$want" ]; then
    integ_pass "'bottleneckd ${cmd:+$cmd }-' offers the $(wc -l <<<"$got") flags of its --help"
  else
    integ_fail "'bottleneckd ${cmd:+$cmd }-' offers: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
  fi
done
integ_finish
