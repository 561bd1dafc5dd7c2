// A thread whose every wait is walked, for bench/offcpu_overhead.sh: it
// sleeps 1 ms at a time (main -> outer -> sleep_step -> nanosleep), ROUNDS
// times, about 900 periods a second, under offcpu's kOffCpuStacksPerSecond
// (1000): each period's kernel and user stacks are walked. Named "sleeper"
// (comm). Reads one line from stdin first (the caller lets it go once the
// daemon follows it). Prints "rounds N seconds S ns_per_round R" as
// pingpong does.
//
// usage: sleeper ROUNDS     Built by bench/offcpu_overhead.sh with
// `cc -O2 -fno-omit-frame-pointer` (its user stacks walk to main).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

__attribute__((noinline)) static int sleep_step(void) {
  const struct timespec ms = {0, 1000000};
  return nanosleep(&ms, NULL);
}

__attribute__((noinline)) static int outer(void) { return sleep_step() + 1; }

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sleeper ROUNDS\n");
    return 2;
  }
  const long rounds = atol(argv[1]);
  if (rounds <= 0 || rounds > 1000000) {
    fprintf(stderr, "sleeper: ROUNDS is 1..1000000\n");
    return 2;
  }
  prctl(PR_SET_NAME, "sleeper");
  char line[8];
  if (!fgets(line, sizeof line, stdin)) return 2;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long sum = 0;
  for (long i = 0; i < rounds; ++i) sum += outer();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("rounds %ld seconds %.3f ns_per_round %.0f\n", rounds, s, s * 1e9 / (double)rounds);
  return sum == rounds ? 0 : 1;
}
