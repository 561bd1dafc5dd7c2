// The bounded UDP sender (and a discard receiver) of bench/capture_live.sh.
//
//   udp_blast send DST_IP PORT RATE COUNT SECONDS [PAYLOAD_BYTES]
//     sends COUNT datagrams of PAYLOAD_BYTES (default 64) to DST_IP:PORT with
//     sendmmsg in batches of up to 64, paced to RATE datagrams a second
//     (0: as fast as it can), and stops at COUNT datagrams or after SECONDS,
//     whichever comes first. Each payload starts with its sequence number.
//     Prints "sent=N errors=E seconds=S rate=R" (R = N / S, S from the first
//     send to the last).
//   udp_blast hold PORT SECONDS
//     binds UDP PORT on every address with the smallest receive buffer and
//     never reads: datagrams to it are dropped by the socket (no ICMP port
//     unreachable, no CPU spent reading), after every capture has seen them.
//     Exits after SECONDS.
//
// Built by the script with cc -O2; bounded in time whatever happens.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kBatch = 64, kMaxPayload = 1472 };

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void SleepSeconds(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

static int Send(const char* ip, int port, double rate, unsigned long long count, double seconds, int payload) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("socket");
    return 1;
  }
  struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, ip, &dst.sin_addr) != 1) {
    fprintf(stderr, "udp_blast: bad address %s\n", ip);
    return 2;
  }
  if (connect(fd, (struct sockaddr*)&dst, sizeof(dst)) != 0) {
    perror("connect");
    return 1;
  }
  static unsigned char bufs[kBatch][kMaxPayload];
  struct iovec iov[kBatch];
  struct mmsghdr msgs[kBatch];
  memset(msgs, 0, sizeof(msgs));
  for (int i = 0; i < kBatch; ++i) {
    memset(bufs[i], 'x', (size_t)payload);
    iov[i].iov_base = bufs[i];
    iov[i].iov_len = (size_t)payload;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  unsigned long long sent = 0, errors = 0;
  const double start = Now(), deadline = start + seconds;
  double last = start;
  while (sent < count) {
    double now = Now();
    if (now >= deadline) break;
    unsigned long long want = count - sent;
    if (rate > 0) {
      double due = rate * (now - start) - (double)sent;
      if (due < 1) {
        SleepSeconds(((double)sent + 1) / rate - (now - start));
        continue;
      }
      if ((double)want > due) want = (unsigned long long)due;
    }
    if (want > kBatch) want = kBatch;
    for (unsigned long long i = 0; i < want; ++i) {
      uint64_t seq = sent + i;
      memcpy(bufs[i], &seq, sizeof(seq) < (size_t)payload ? sizeof(seq) : (size_t)payload);
    }
    int n = sendmmsg(fd, msgs, (unsigned)want, 0);
    if (n < 0) {
      if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
        perror("sendmmsg");
        break;
      }
      ++errors;
      continue;
    }
    sent += (unsigned long long)n;
    last = Now();
  }
  double took = last - start;
  printf("sent=%llu errors=%llu seconds=%.6f rate=%.0f\n", sent, errors, took, took > 0 ? (double)sent / took : 0.0);
  close(fd);
  return 0;
}

static int Hold(int port, double seconds) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("socket");
    return 1;
  }
  int small = 1;  // the kernel rounds it up to its minimum
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = INADDR_ANY};
  if (bind(fd, (struct sockaddr*)&a, sizeof(a)) != 0) {
    perror("bind");
    return 1;
  }
  printf("holding port %d\n", port);
  fflush(stdout);
  SleepSeconds(seconds);
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 7 && strcmp(argv[1], "send") == 0) {
    int payload = argc >= 8 ? atoi(argv[7]) : 64;
    if (payload < 1 || payload > kMaxPayload) payload = 64;
    return Send(argv[2], atoi(argv[3]), atof(argv[4]), strtoull(argv[5], NULL, 10), atof(argv[6]), payload);
  }
  if (argc == 4 && strcmp(argv[1], "hold") == 0) return Hold(atoi(argv[2]), atof(argv[3]));
  fprintf(stderr,
          "usage: udp_blast send DST_IP PORT RATE COUNT SECONDS [PAYLOAD_BYTES]\n"
          "       udp_blast hold PORT SECONDS\n");
  return 2;
}
