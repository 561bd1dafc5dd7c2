// A CPU-bound program with a known hot function for the profiler's test
// (tests/integration/profile_test.sh): main -> outer -> copy_loop, for the
// seconds its argument says. Built twice (tests/CMakeLists.txt): with frame
// pointers, whose stacks the profiler walks to main, and without, whose
// stacks it must call truncated. With a second argument `wait` it waits
// instead: main -> outer_wait -> sleep_step, a 1 ms nanosleep at a time, for
// the off-CPU stacks (docs/offcpu.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
__attribute__((noinline)) unsigned long copy_loop(unsigned long n) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < n; ++i) x += i * 7;
  return x;
}
__attribute__((noinline)) unsigned long outer(unsigned long n) { return copy_loop(n) + 1; }
__attribute__((noinline)) unsigned long sleep_step(void) {
  const struct timespec ms = {0, 1000000};
  return nanosleep(&ms, NULL) == 0;
}
__attribute__((noinline)) unsigned long outer_wait(void) { return sleep_step() + 1; }
int main(int argc, char** argv) {
  double secs = argc > 1 ? atof(argv[1]) : 5;
  const int wait = argc > 2 && strcmp(argv[2], "wait") == 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long s = 0;
  do {
    s += wait ? outer_wait() : outer(1000000);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
  printf("%lu\n", s & 1);
  return 0;
}
