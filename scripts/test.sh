#!/usr/bin/env bash
# Builds and runs every bottleneckd test:
#   0. the formatting check: every C/C++ file as .clang-format formats it
#   1. GCC, RelWithDebInfo: the GoogleTest suites, layering probes, integration
#      tests (real binary, promtool, Prometheus, Chromium, the package) and the echo lab
#   2. clang, one tree: -Wthread-safety -Werror, AddressSanitizer +
#      UndefinedBehaviorSanitizer and libFuzzer coverage; the GoogleTest suites
#      again (not the scripts), then every libFuzzer target for FUZZ_SECONDS
#      (default 10) each, seeded with fixtures
# Ends with one "N passed, N failed" line and each stage's minutes. Exit status 0
# only if everything passed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
scripts/install-deps.sh || exit 1

JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
passed=0
failed=0
failures=()

# Runs ctest in build dir $1 (label $2) and adds its counts to the totals.
run_ctest() {
  local dir=$1 label=$2 log
  log=$(mktemp)
  (cd "$dir" && ctest --output-on-failure --timeout 600 -j"$JOBS") 2>&1 | tee "$log"
  local line total fail
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then
    failed=$((failed + 1)); failures+=("$label: ctest produced no summary")
  else
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    fail=$(sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    passed=$((passed + total - fail)); failed=$((failed + fail))
    [ "$fail" -eq 0 ] || failures+=("$label: $fail ctest failures")
  fi
  rm -f "$log"
}

started=$SECONDS
stage_times=()
stage_done() { stage_times+=("$1 $(( (SECONDS - started) / 60 )) min"); started=$SECONDS; }

build() {  # build dir, cmake args...
  local dir=$1; shift
  cmake -S "$ROOT" -B "$dir" -DBOTTLENECKD_WERROR=ON "$@" >/dev/null &&
    cmake --build "$dir" -j"$JOBS" 2>&1 | grep -vE '^\[ *[0-9]+%\]|^-- ' ; return "${PIPESTATUS[0]}"
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

echo "=== [1/2] build + tests (GCC, RelWithDebInfo)"
if build build/test; then run_ctest build/test "tests"; else failed=$((failed + 1)); failures+=("build/test: build failed"); fi
stage_done "GCC build + tests"

echo "=== [2/2] clang -Wthread-safety -Werror, ASan + UBSan: the unit suites, then every libFuzzer target for ${FUZZ_SECONDS}s"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -O1 with line tables: sanitizer reports keep file:line, the tree builds and
# links in a fraction of -O2 -g's time.
if CC=clang CXX=clang++ build build/sanitize -DBOTTLENECKD_SANITIZE=ON -DBOTTLENECKD_FUZZ=ON \
     -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only"; then
  run_ctest build/sanitize "sanitize"
  corpus_src=$(mktemp -d)
  find tests/fixtures -type f -size -256k -not -name '*.md' | head -400 | while read -r f; do
    cp "$f" "$corpus_src/$(echo "$f" | tr '/' '_')"; done
  for fz in build/sanitize/tests/fuzz/*_fuzz; do
    [ -x "$fz" ] || continue
    name=$(basename "$fz")
    corpus=$(mktemp -d); cp "$corpus_src"/* "$corpus"/ 2>/dev/null
    if "$fz" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
         "$corpus" >"build/sanitize/$name.log" 2>&1; then
      echo "fuzz $name: ok ($(grep -Eo "stat::number_of_executed_units: [0-9]+" "build/sanitize/$name.log" | tail -1))"
      passed=$((passed + 1))
    else
      echo "fuzz $name: FAILED"; tail -40 "build/sanitize/$name.log"
      failed=$((failed + 1)); failures+=("fuzz: $name")
    fi
    rm -rf "$corpus"
  done
  rm -rf "$corpus_src"
else
  failed=$((failed + 1)); failures+=("build/sanitize: build failed")
fi
stage_done "clang sanitizers + fuzz"

for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "stages: ${stage_times[*]/%/;}"
echo "bottleneckd: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
