#!/usr/bin/env bash
# Builds and runs every bottleneckd test:
#   0. the formatting check: every C/C++ file as .clang-format formats it
#   1. GCC, the Debian package's build with the tests on: the e2e suites (the
#      shipped binary), SoakerDuty, layering probes, integration tests (real
#      binary, promtool, Prometheus, Chromium, the package) and the echo lab
#   2. clang, one tree: -Wthread-safety -Werror, AddressSanitizer +
#      UndefinedBehaviorSanitizer and libFuzzer coverage; the stages' unit
#      suites and the e2e suites (not the scripts), then every libFuzzer target for FUZZ_SECONDS
#      (default 10) each, JOBS at a time, seeded with fixtures
# Ends with one "N passed, N failed" line and each stage's minutes. Exit status 0
# only if everything passed.
#
#   scripts/test.sh --quick   the quick tier (docs/development.md): the format
#                             check, an incremental GCC build and the tests
#                             labelled unit and layering; no daemon, lab,
#                             package or sanitizer run. Not what CI runs.
set -uo pipefail
QUICK=0
case "${1:-}" in
  --quick) QUICK=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
ROOT=$PWD
scripts/install-deps.sh || exit 1

JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
passed=0
failed=0
failures=()
retried=()
skipped_names=()

# Runs ctest in build dir $1 (label $2; more ctest arguments after it, -jN
# among them) and adds its counts to the totals.
run_ctest() {
  local dir=$1 label=$2 log
  shift 2
  log=$(mktemp)
  (cd "$dir" && ctest --output-on-failure --timeout 600 "$@") 2>&1 | tee "$log"
  local line total fail
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then
    failed=$((failed + 1)); failures+=("$label: ctest produced no summary")
  else
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    fail=$(sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    # A skipped test (GTEST_SKIP: tests/CMakeLists.txt) is neither passed
    # nor failed: counted and named apart.
    local skips
    skips=$(sed -n '/^The following tests did not run:/,/^$/p' "$log" |
            sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(Skipped\).*/\1/p')
    local n
    while read -r n; do [ -z "$n" ] || skipped_names+=("$n"); done <<<"$skips"
    passed=$((passed + total - fail - $(grep -c . <<<"$skips"))); failed=$((failed + fail))
    # The failed tests by name: the summary at the end is often all of a
    # CI log a reader gets.
    local names
    names=$(sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$log" |
            sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) .*/\1/p' | paste -sd' ')
    [ "$fail" -eq 0 ] || failures+=("$label: $fail ctest failures${names:+: $names}")
  fi
  rm -f "$log"
}

started=$SECONDS
stage_times=()
stage_done() { stage_times+=("$1 $(( (SECONDS - started) / 60 )) min"); started=$SECONDS; }
# The last lines: each failure, each stage's minutes, "$1: N passed, N failed";
# the status is 0 only if nothing failed.
finish() {
  for f in "${failures[@]}"; do echo "FAILED: $f"; done
  for r in "${retried[@]}"; do echo "LAB ATTEMPTS: $r failed an attempt (see the list above; FAILED too if it failed them all)"; done
  # Each failed lab attempt's first FAIL lines and its cause, shortened.
  if [ -s build/test/tests/lab-retries.log ]; then
    cut -c1-700 build/test/tests/lab-retries.log | head -n 12 | sed 's/^/LAB: /'
  fi
  echo "stages: ${stage_times[*]/%/;}"
  [ "${#skipped_names[@]}" -eq 0 ] || echo "SKIPPED (not passed, not failed): ${skipped_names[*]}"
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

# Both trees are unity builds (BOTTLENECKD_UNITY, cmake/stages.cmake), made
# by Ninja where a new tree is configured: make builds a target's objects only
# after the targets it links, so a stage of one or two batches kept a core
# idle (a fresh GCC tree: 9.8 min with make, unity; docs/performance.md "CI").
build() {  # build dir, cmake args...
  local dir=$1 gen=(); shift
  [ -f "$dir/CMakeCache.txt" ] || ! command -v ninja >/dev/null || gen=(-G Ninja)
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" -DBOTTLENECKD_WERROR=ON -DBOTTLENECKD_UNITY=ON "$@" >/dev/null &&
    make_tree "$dir"
}
make_tree() {  # build dir
  cmake --build "$1" -j"$JOBS" 2>&1 | grep -vE '^\[ *[0-9]+%\]|^\[[0-9]+/[0-9]+\] |^-- ' ; return "${PIPESTATUS[0]}"
}

# The GCC tree is the Debian package's build with the tests on (debian/rules
# test-tree: dpkg-buildflags' -O2 and hardening flags, the /usr paths, Ninja,
# unity, -Werror), so the package test packages the binary the suites tested
# instead of compiling everything again (its build: 98 s of compiling before,
# docs/performance.md "CI"). Line tables only (-g1, like the clang tree's
# -gline-tables-only): backtraces keep file:line, and the -O2 compile is a
# quarter cheaper (daemon/'s first unity batch: 23.5 s with -g, 18.0 s with
# -g1 on the 2-core VM). A tree configured otherwise is made again. The
# stages' unit suites are built here for the quick tier only: a full run
# leaves them to the clang tree, which runs each under the sanitizers.
gcc_tree() {  # build dir, ON|OFF (the unit suites)
  local dir=$1 unit=$2 log
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^BOTTLENECKD_DEB_TREE:BOOL=ON$' "$dir/CMakeCache.txt"; then
    echo "$dir: configured before debian/rules test-tree; configuring it again from scratch"
    rm -rf "$dir"
  fi
  log=$(mktemp)
  if ! BUILDDIR=$dir DEB_CFLAGS_APPEND=-g1 DEB_CXXFLAGS_APPEND=-g1 TEST_TREE_ARGS=-DBOTTLENECKD_UNIT_SUITES=$unit \
       debian/rules test-tree >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; return 1
  fi
  rm -f "$log"
  make_tree "$dir"
}

echo "=== [0/2] formatting (.clang-format)"
# Every tracked C/C++ file outside the fixtures, as clang-format would write it.
# Fix with: clang-format -i FILE...
mapfile -t sources < <(git ls-files '*.cc' '*.h' '*.c' ':!tests/fixtures/*' 2>/dev/null ||
                       find . -name build -prune -o \( -name '*.cc' -o -name '*.h' -o -name '*.c' \) -print)
if unformatted=$(clang-format --dry-run --Werror "${sources[@]}" 2>&1) && [ ${#sources[@]} -gt 0 ]; then
  echo "format: ok (${#sources[@]} files)"; passed=$((passed + 1))
else
  echo "$unformatted" | grep -E '^[^ ].*(error|warning):' | cut -d: -f1 | sort -u | sed 's/^/format: not clang-formatted: /'
  failed=$((failed + 1)); failures+=("format: files differ from .clang-format (clang-format -i them)")
fi
stage_done format

if [ "$QUICK" = 1 ]; then
  echo "=== [1/1] quick tier: build + the unit and layering tests (GCC, the package's flags)"
  if gcc_tree build/test ON; then
    run_ctest build/test "quick" -j"$JOBS" -L '^(unit|layering)$'
  else
    failed=$((failed + 1)); failures+=("build/test: build failed")
  fi
  stage_done "quick (GCC build + unit tests)"
  finish "bottleneckd quick tier (the full run: scripts/test.sh)"
  exit
fi

echo "=== [1/2] build + tests (GCC, the package's flags: debian/rules test-tree)"
# Two tests per core: the GCC tree's tests are the e2e suites and the
# scripts, which wait on daemons, Chromium and Prometheus more than they
# compute (without the labs and the package: 179 s with 35 % of the CPU idle
# at -j2, 97-124 s at -j4 on the 2-core VM). RUN_SERIAL tests (the labs,
# SoakerDuty) still run alone.
# The labs get up to three attempts (tests/echo_lab/attempts.sh); each one
# that needed more than one is listed here and in the summary.
rm -f build/test/tests/lab-retries.log
if gcc_tree build/test OFF; then run_ctest build/test "tests" -j$((JOBS * 2)); else failed=$((failed + 1)); failures+=("build/test: build failed"); fi
if [ -s build/test/tests/lab-retries.log ]; then
  echo "=== labs with a failed attempt (each failed attempt's FAIL lines):"
  cat build/test/tests/lab-retries.log
  while IFS= read -r l; do retried+=("${l%%:*}"); done < <(grep -E '^lab\.[a-z]+: attempt 1 of' build/test/tests/lab-retries.log)
fi
stage_done "GCC build + tests"

# One libFuzzer target ($1) for FUZZ_SECONDS over a private copy of the seed
# corpus ($2): its log in build/sanitize/NAME.log, its exit status in NAME.rc.
fuzz_one() {
  local fz=$1 name corpus
  name=$(basename "$fz"); corpus=$(mktemp -d); cp "$2"/* "$corpus"/ 2>/dev/null
  "$fz" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "$corpus" >"build/sanitize/$name.log" 2>&1
  echo $? >"build/sanitize/$name.rc"
  rm -rf "$corpus"
}

echo "=== [2/2] clang -Wthread-safety -Werror, ASan + UBSan: the unit suites, then every libFuzzer target for ${FUZZ_SECONDS}s"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -O0 with line tables: sanitizer reports keep file:line, and the tree builds
# in less than half -O1's time (cmd/'s unity batch, instrumented: 44.3 s at
# -O1, 17.5 s at -O0 on the 2-core VM; the whole tree 299 s -> 216 s) while
# its suites run 53 s -> 73 s (docs/performance.md "CI").
if CC=clang CXX=clang++ build build/sanitize -DBOTTLENECKD_SANITIZE=ON -DBOTTLENECKD_FUZZ=ON \
     -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only"; then
  run_ctest build/sanitize "sanitize" -j"$JOBS"
  corpus_src=$(mktemp -d)
  find tests/fixtures -type f -size -256k -not -name '*.md' | head -400 | while read -r f; do
    cp "$f" "$corpus_src/$(echo "$f" | tr '/' '_')"; done
  # JOBS fuzzers at a time (each is one process on one core); results are read
  # back in name order, so the log reads the same however they interleave.
  fuzzers=(); rm -f build/sanitize/*_fuzz.rc
  for fz in build/sanitize/tests/fuzz/*_fuzz; do [ -x "$fz" ] && fuzzers+=("$fz"); done
  for fz in "${fuzzers[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    fuzz_one "$fz" "$corpus_src" &
  done
  wait
  for fz in "${fuzzers[@]}"; do
    name=$(basename "$fz")
    if [ "$(cat "build/sanitize/$name.rc" 2>/dev/null)" = 0 ]; then
      echo "fuzz $name: ok ($(grep -Eo "stat::number_of_executed_units: [0-9]+" "build/sanitize/$name.log" | tail -1))"
      passed=$((passed + 1))
    else
      echo "fuzz $name: FAILED"; tail -40 "build/sanitize/$name.log"
      failed=$((failed + 1)); failures+=("fuzz: $name")
    fi
  done
  rm -rf "$corpus_src"
else
  failed=$((failed + 1)); failures+=("build/sanitize: build failed")
fi
stage_done "clang sanitizers + fuzz"

finish bottleneckd
