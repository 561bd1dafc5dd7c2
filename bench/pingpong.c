// Context-switch load for bench/offcpu_overhead.sh: two threads pinned to one
// CPU pass a byte back and forth through two pipes, ROUNDS times (bounded: it
// stops by itself). Each round is two blocking reads, so two context
// switches (one thread away, the other back). The threads are named "pingpong" (comm), so a
// daemon can target them by name. Both threads exist before it starts: it
// reads one line from stdin first (the caller lets it go once the daemon
// follows them). Prints "rounds N seconds S ns_per_round R".
//
// usage: pingpong CPU ROUNDS     Built by bench/offcpu_overhead.sh with `cc -O2`.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int a_to_b[2], b_to_a[2];
static long rounds;

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

static int cpu_arg;

static void* pong(void* arg) {
  (void)arg;
  pin(cpu_arg);
  char c;
  for (long i = 0; i < rounds; i++) {
    if (read(a_to_b[0], &c, 1) != 1 || write(b_to_a[1], &c, 1) != 1) break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: pingpong CPU ROUNDS\n");
    return 2;
  }
  cpu_arg = atoi(argv[1]);
  rounds = atol(argv[2]);
  if (rounds <= 0 || rounds > 100000000L) {
    fprintf(stderr, "pingpong: ROUNDS must be 1..100000000\n");
    return 2;
  }
  prctl(PR_SET_NAME, "pingpong");
  if (pipe(a_to_b) != 0 || pipe(b_to_a) != 0) return 1;
  pin(cpu_arg);
  pthread_t t;
  if (pthread_create(&t, NULL, pong, NULL) != 0) return 1;
  char line[16];
  if (!fgets(line, sizeof line, stdin)) return 1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char c = 'x';
  long done = 0;
  for (; done < rounds; done++) {
    if (write(a_to_b[1], &c, 1) != 1 || read(b_to_a[0], &c, 1) != 1) break;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  pthread_join(t, NULL);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("rounds %ld seconds %.3f ns_per_round %.0f\n", done, s, s * 1e9 / (double)(done ? done : 1));
  return done == rounds ? 0 : 1;
}
