// Scrape load with a new TCP connection per request, for bench/http_fresh.sh:
// CLIENTS threads each connect to 127.0.0.1:PORT, wait GAP_US microseconds
// (a client slow to send its first byte: an interpreter between its connect
// and its send, a TLS handshake), send one "GET PATH HTTP/1.1" with
// "Connection: close", read to the end and close, again and again for SECONDS
// (bounded: it stops by itself, and after at most MAX requests in all). Each
// request ends as one of
//   ok          a complete 200 answer (Content-Length bytes of body, or a
//               chunked body's last chunk, or the close of one with neither)
//   status      a complete answer that is not 200
//   no_answer   the connection ended (FIN) before any byte of an answer
//   reset       the connection was reset (ECONNRESET) before any byte
//   short       the connection ended inside the answer
//   connect     connect() failed (its errno is counted by name)
//   timeout     no end within 30 s (SO_RCVTIMEO)
// Prints one JSON object: the counts, latency (connect to end) p50/p99/max in
// ms, and up to 20 failures with the client port, the time since the start
// and the ms the request had run, to line up with a packet capture.
//
// usage: fresh_scrapes PORT CLIENTS SECONDS [PATH] [MAX] [GAP_US]
// Built by bench/http_fresh.sh with `cc -O2 -pthread`.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { OK, STATUS, NO_ANSWER, RESET, SHORT, CONNECT, TIMEOUT, N_OUTCOMES };
static const char* kNames[N_OUTCOMES] = {"ok", "status", "no_answer", "reset", "short", "connect", "timeout"};

typedef struct {
  int outcome;
  int port;
  double at_s;
  double ms;
  int err;
} Failure;

static int port;
static double seconds;
static const char* path = "/metrics";
static long max_requests = 10000000;
static long gap_us;
static double t0;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counts[N_OUTCOMES];
static long issued;
static Failure failures[20];
static int n_failures;
static double* latencies;
static long n_latencies, cap_latencies;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void record(int outcome, int local_port, double start, double end, int err) {
  pthread_mutex_lock(&mu);
  counts[outcome]++;
  if (outcome == OK || outcome == STATUS) {
    if (n_latencies == cap_latencies) {
      cap_latencies = cap_latencies ? cap_latencies * 2 : 65536;
      latencies = realloc(latencies, (size_t)cap_latencies * sizeof(double));
      if (!latencies) abort();
    }
    latencies[n_latencies++] = (end - start) * 1e3;
  } else if (n_failures < 20) {
    failures[n_failures++] = (Failure){outcome, local_port, start - t0, (end - start) * 1e3, err};
  }
  pthread_mutex_unlock(&mu);
}

// One request on a fresh connection.
static void one(char* buf, size_t cap) {
  double start = now_s();
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    record(CONNECT, 0, start, now_s(), errno);
    return;
  }
  struct timeval tv = {30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr*)&sa, sizeof sa) != 0) {
    record(CONNECT, 0, start, now_s(), errno);
    close(fd);
    return;
  }
  struct sockaddr_in me;
  socklen_t len = sizeof me;
  getsockname(fd, (struct sockaddr*)&me, &len);
  int local_port = ntohs(me.sin_port);
  if (gap_us > 0) usleep((useconds_t)gap_us);
  char req[256];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
  if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
    record(errno == ECONNRESET || errno == EPIPE ? RESET : NO_ANSWER, local_port, start, now_s(), errno);
    close(fd);
    return;
  }
  size_t got = 0;
  long head_end = -1, content_length = -1;
  int status = 0, outcome = -1, err = 0, chunked = 0;
  char tail[5] = {0};  // the last bytes received: a chunked body ends in "0\r\n\r\n"
  for (;;) {
    ssize_t r = recv(fd, buf + got, cap - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      err = r < 0 ? errno : 0;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        outcome = TIMEOUT;
      else if (got == 0)
        outcome = r < 0 && errno == ECONNRESET ? RESET : NO_ANSWER;
      else if (head_end >= 0 && (content_length >= 0 ? (long)got - head_end >= content_length
                                 : chunked           ? memcmp(tail, "0\r\n\r\n", 5) == 0
                                                     : 1))
        outcome = status == 200 ? OK : STATUS;
      else
        outcome = SHORT;
      break;
    }
    for (ssize_t i = r > 5 ? r - 5 : 0; i < r; i++) {
      memmove(tail, tail + 1, 4);
      tail[4] = buf[got + (size_t)i];
    }
    got += (size_t)r;
    if (head_end < 0) {
      buf[got < cap ? got : cap - 1] = '\0';
      char* e = strstr(buf, "\r\n\r\n");
      if (e) {
        head_end = e + 4 - buf;
        sscanf(buf, "HTTP/1.%*d %d", &status);
        char* cl = strcasestr(buf, "\r\nContent-Length:");
        if (cl && cl < e) content_length = strtol(cl + 17, NULL, 10);
        char* te = strcasestr(buf, "\r\nTransfer-Encoding: chunked");
        chunked = te && te < e;
      }
    }
    if (got == cap) {  // keep the head, drop the body's bytes already counted
      if (head_end < 0) {
        outcome = SHORT;
        break;
      }
      if (content_length >= 0) content_length -= (long)got - head_end;
      got = (size_t)head_end;
    }
  }
  record(outcome, local_port, start, now_s(), err);
  close(fd);
}

static void* client(void* arg) {
  (void)arg;
  size_t cap = 1 << 20;
  char* buf = malloc(cap);
  if (!buf) abort();
  while (now_s() - t0 < seconds) {
    pthread_mutex_lock(&mu);
    int go = issued < max_requests;
    issued++;
    pthread_mutex_unlock(&mu);
    if (!go) break;
    one(buf, cap);
  }
  free(buf);
  return NULL;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: fresh_scrapes PORT CLIENTS SECONDS [PATH] [MAX] [GAP_US]\n");
    return 2;
  }
  port = atoi(argv[1]);
  int clients = atoi(argv[2]);
  seconds = atof(argv[3]);
  if (argc > 4) path = argv[4];
  if (argc > 5) max_requests = atol(argv[5]);
  if (argc > 6) gap_us = atol(argv[6]);
  if (port <= 0 || port > 65535 || clients <= 0 || clients > 1000 || seconds <= 0 || seconds > 3600 || gap_us < 0 ||
      gap_us > 10000000) {
    fprintf(stderr, "fresh_scrapes: PORT 1-65535, CLIENTS 1-1000, SECONDS up to 3600, GAP_US up to 10 s\n");
    return 2;
  }
  t0 = now_s();
  pthread_t* t = calloc((size_t)clients, sizeof *t);
  for (int i = 0; i < clients; i++) pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < clients; i++) pthread_join(t[i], NULL);
  double wall = now_s() - t0;
  qsort(latencies, (size_t)n_latencies, sizeof(double), cmp);
  long total = 0;
  for (int i = 0; i < N_OUTCOMES; i++) total += counts[i];
  printf("{\"seconds\": %.1f, \"clients\": %d, \"requests\": %ld", wall, clients, total);
  for (int i = 0; i < N_OUTCOMES; i++) printf(", \"%s\": %ld", kNames[i], counts[i]);
  if (n_latencies > 0) {
    printf(", \"p50_ms\": %.2f, \"p99_ms\": %.2f, \"max_ms\": %.1f", latencies[n_latencies / 2],
           latencies[(long)(n_latencies * 0.99)], latencies[n_latencies - 1]);
  }
  printf(", \"failures\": [");
  for (int i = 0; i < n_failures; i++) {
    printf("%s{\"outcome\": \"%s\", \"port\": %d, \"at_s\": %.3f, \"ms\": %.1f, \"errno\": \"%s\"}", i ? ", " : "",
           kNames[failures[i].outcome], failures[i].port, failures[i].at_s, failures[i].ms,
           failures[i].err ? strerrorname_np(failures[i].err) : "");
  }
  printf("]}\n");
  free(t);
  free(latencies);
  return 0;
}
