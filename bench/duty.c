// Load generator for the soaker benchmarks (bench/soaker_accuracy.sh,
// bench/soaker_perturbation.sh). Every mode pins itself to one CPU and is
// bounded in time or work; it stops by itself.
//
//   duty CPU DUTY SECONDS   busy-spin DUTY (0..1) of each 9.73 ms period, sleep
//                           the rest (9.73 ms is no multiple of any HZ, so
//                           /proc/stat's tick sampling does not alias with it),
//                           for SECONDS. Prints "share S" at the end: the
//                           thread's own CPU time over the wall time.
//   work CPU N              N million rounds of a fixed integer chain (normal
//                           priority); prints "wall_s W cpu_s C".
//   calib CPU SECONDS       the soaker's calibration as sources/soaker.cc does
//                           it (the same 256-step xorshift64 unit, counted
//                           one by one, 5 ms slices of thread CPU time) and
//                           prints the slice-rate percentiles "pNN RATE" so a
//                           percentile other than the soaker's 95th can be
//                           judged. A copy of the loop: keep in step with it.
//
// Built by bench/soaker_accuracy.sh with `cc -O3` (no CMake target).
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
}

static int duty(double d, double seconds) {
  const int64_t period = 9730000, busy = (int64_t)(d * period);
  int64_t start = now_ns(CLOCK_MONOTONIC), end = start + (int64_t)(seconds * 1e9);
  int64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  for (int64_t p = start; p < end; p += period) {
    while (now_ns(CLOCK_MONOTONIC) < p + busy) {
    }
    if (busy < period) {
      int64_t n = p + period;
      struct timespec ts = {(time_t)(n / 1000000000), (long)(n % 1000000000)};
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
  }
  double wall = (now_ns(CLOCK_MONOTONIC) - start) / 1e9;
  printf("share %.4f\n", (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9 / wall);
  return 0;
}

static int work(long millions) {
  int64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  uint64_t x = 88172645463325252ull, acc = 0;
  for (long i = 0; i < millions * 1000000L; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    acc += x % 7;  // a division: some work the soaker cannot share
  }
  printf("wall_s %.4f cpu_s %.4f sum %llu\n", (now_ns(CLOCK_MONOTONIC) - w0) / 1e9,
         (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9, (unsigned long long)acc);
  return 0;
}

__attribute__((noinline)) static uint64_t work_unit(uint64_t x) {
  for (int i = 0; i < 256; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

static _Atomic uint64_t counter, sink;

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int calib(double seconds) {
  size_t cap = (size_t)(seconds / 0.005) + 16, n = 0;
  double* rates = malloc(cap * sizeof *rates);
  int64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID), slice = start, t = start;
  uint64_t units = 0, slice_units = 0, x = 1;
  while (t - start < (int64_t)(seconds * 1e9) && n < cap) {
    for (int k = 0; k < 1024; ++k) {
      x = work_unit(x);
      atomic_store_explicit(&counter, ++units, memory_order_relaxed);
    }
    atomic_store_explicit(&sink, x, memory_order_relaxed);
    t = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (t - slice >= 5000000) {
      rates[n++] = (double)(units - slice_units) * 1e9 / (double)(t - slice);
      slice = t;
      slice_units = units;
    }
  }
  qsort(rates, n, sizeof *rates, cmp);
  static const double ps[] = {0.05, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1.0};
  printf("slices %zu\n", n);
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; ++i) {
    size_t r = (size_t)ceil(ps[i] * n);
    if (r < 1) r = 1;
    printf("p%02.0f %.1f\n", ps[i] * 100, rates[r - 1]);
  }
  free(rates);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: duty duty CPU DUTY SECONDS | work CPU MILLIONS | calib CPU SECONDS\n");
    return 2;
  }
  pin(atoi(argv[2]));
  if (strcmp(argv[1], "duty") == 0 && argc == 5) return duty(atof(argv[3]), atof(argv[4]));
  if (strcmp(argv[1], "work") == 0 && argc == 4) return work(atol(argv[3]));
  if (strcmp(argv[1], "calib") == 0 && argc == 4) return calib(atof(argv[3]));
  fprintf(stderr, "duty: bad arguments\n");
  return 2;
}
