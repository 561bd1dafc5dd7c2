// A fixed amount of CPU work for bench/profile_overhead.sh: `spin CPU N`
// pins itself to CPU, runs N rounds of a multiply-add loop through two
// calls (frame pointers kept: the profiler walks main -> outer -> inner) and
// prints the nanoseconds it took. A sampler on that CPU takes its time out
// of these rounds.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static unsigned long inner(unsigned long n) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < n; ++i) x += i * 7;
  return x;
}
__attribute__((noinline)) static unsigned long outer(unsigned long n) { return inner(n) + 1; }

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: spin CPU ROUNDS\n");
    return 2;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(atoi(argv[1]), &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    return 1;
  }
  const long rounds = atol(argv[2]);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long s = 0;
  for (long r = 0; r < rounds; ++r) s += outer(100000);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%lld %lu\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec), s & 1);
  return 0;
}
