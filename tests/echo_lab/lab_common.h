// What the echo lab's two programs (echo_server.c, load_gen.c) share: the
// stop flag their SIGTERM/SIGINT handler sets, the monotonic clock, pinning
// to one CPU and number parsing. Header-only, C.
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t g_stop = 0;
static void LabOnSignal(int sig) {
  (void)sig;
  g_stop = 1;
}

// SIGTERM and SIGINT set g_stop (the loops check it and print their counts).
static void LabStopOnSignals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = LabOnSignal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

static double LabNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Pins the calling thread to `cpu` (-1: leaves it alone); 0 on success.
static int LabPin(int cpu) {
  if (cpu < 0) return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    return -1;
  }
  return 0;
}

// A whole decimal number in [lo, hi]; 1 on success.
static int LabParseDouble(const char* s, double lo, double hi, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi)) return 0;
  *out = v;
  return 1;
}
