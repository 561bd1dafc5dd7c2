// The load generator of the echo lab (tests/echo_lab/README.md): sends UDP
// datagrams to the echo server at a stepped rate and counts the echoes it
// gets back, per step. Its counts are the lab's ground truth for offered and
// delivered load, independent of bottleneckd.
//
//   lab_load_gen DST_IP PORT PAYLOAD_BYTES CPU STEP_SECONDS RATE...
//     pins itself to CPU (-1: anywhere); for each RATE in turn (datagrams a
//     second, 0: as fast as it can), sends PAYLOAD_BYTES datagrams (12 to
//     1472) for STEP_SECONDS (0.2 to 600) with sendmmsg in batches of up to
//     64, paced against the clock. Each payload starts with its step index
//     and sequence number, so an echo is counted for the step that sent it
//     even when it arrives later. After the last step it waits 0.5 s for
//     late echoes. Prints, per step,
//       "step=I rate=R sent=N echoed=M send_errors=E seconds=S stall_ms=T"
//     (S: the step's measured length; send_errors: datagrams the kernel
//     refused, retried later and not counted as sent; T: the longest pass of
//     its sending loop, which sleeps at most 1 ms: longer is a stall of its
//     CPU, and the datagrams it owed went out in one burst after) and a progress line
//     to stderr at each step's start.
//
// LAB_GEN_WORK_US=W in the environment (0 to 10000): the generator spins W
// microseconds composing each datagram, as one that computes its requests
// would; it then saturates its CPU below the rate it is asked for (the
// fleet lab's generator-bound case, tests/echo_lab/fleet_lab_test.sh).
//
// Bounded: at most 64 steps, each bounded in time; a rate is at most 2 M/s.
#define _GNU_SOURCE  // before any include: sched_setaffinity, recvmmsg
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab_common.h"

enum { kBatch = 64, kMaxSteps = 64, kMinPayload = 12, kMaxPayload = 1472 };

static void Sleep(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

struct Step {
  double rate, seconds;
  unsigned long long sent, echoed, send_errors;
  // The longest pass of the sending loop: it sleeps at most 1 ms and never
  // blocks, so a longer one is its CPU taken from it (a stall of the VM or
  // the host), after which it sends the datagrams it owes in one burst.
  double stall;
};

static struct Step g_steps[kMaxSteps];
static int g_step_count = 0;

// Reads every echo waiting on the socket (non-blocking); counts each for the
// step its payload names. Returns how many it read.
static int Drain(int fd, int payload) {
  static char bufs[kBatch][kMaxPayload];
  struct mmsghdr msgs[kBatch];
  struct iovec iov[kBatch];
  memset(msgs, 0, sizeof msgs);
  for (int i = 0; i < kBatch; ++i) {
    iov[i].iov_base = bufs[i];
    iov[i].iov_len = (size_t)payload;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  int total = 0;
  for (;;) {
    int n = recvmmsg(fd, msgs, kBatch, MSG_DONTWAIT, NULL);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      uint32_t step;
      if (msgs[i].msg_len < sizeof step) continue;
      memcpy(&step, bufs[i], sizeof step);
      if (step < (uint32_t)g_step_count) ++g_steps[step].echoed;
    }
    total += n;
    if (n < kBatch) break;
  }
  return total;
}

int main(int argc, char** argv) {
  double port, payload_d, cpu_d, step_seconds;
  if (argc < 7 || !LabParseDouble(argv[2], 1, 65535, &port) ||
      !LabParseDouble(argv[3], kMinPayload, kMaxPayload, &payload_d) || !LabParseDouble(argv[4], -1, 4095, &cpu_d) ||
      !LabParseDouble(argv[5], 0.2, 600, &step_seconds) || argc - 6 > kMaxSteps) {
    fprintf(stderr,
            "usage: lab_load_gen DST_IP PORT PAYLOAD_BYTES(12-1472) CPU(-1: any) STEP_SECONDS(0.2-600) "
            "RATE... (at most %d; datagrams/s, 0: as fast as it can)\n",
            kMaxSteps);
    return 2;
  }
  const int payload = (int)payload_d, cpu = (int)cpu_d;
  for (int i = 6; i < argc; ++i) {
    if (!LabParseDouble(argv[i], 0, 2e6, &g_steps[g_step_count].rate)) {
      fprintf(stderr, "lab_load_gen: bad rate %s (0 to 2000000)\n", argv[i]);
      return 2;
    }
    ++g_step_count;
  }
  double work_us = 0;
  const char* work = getenv("LAB_GEN_WORK_US");
  if (work && !LabParseDouble(work, 0, 10000, &work_us)) {
    fprintf(stderr, "lab_load_gen: bad LAB_GEN_WORK_US %s (0 to 10000)\n", work);
    return 2;
  }
  if (LabPin(cpu) != 0) return 1;
  LabStopOnSignals();

  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    perror("socket");
    return 1;
  }
  int rcvbuf = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
    fprintf(stderr, "lab_load_gen: bad address %s\n", argv[1]);
    return 2;
  }
  if (connect(fd, (struct sockaddr*)&dst, sizeof dst) != 0) {
    perror("connect");
    return 1;
  }

  static char bufs[kBatch][kMaxPayload];
  struct mmsghdr msgs[kBatch];
  struct iovec iov[kBatch];
  memset(bufs, 0, sizeof bufs);
  for (int s = 0; s < g_step_count && !g_stop; ++s) {
    struct Step* st = &g_steps[s];
    fprintf(stderr, "lab_load_gen: step %d: %.0f datagrams/s for %.1f s\n", s, st->rate, step_seconds);
    const double start = LabNow(), end = start + step_seconds;
    double now = start;
    uint64_t seq = 0;
    while (!g_stop && now < end) {
      const double pass_start = now;
      // Datagrams due by now (the whole batch when flat out).
      double due = st->rate > 0 ? st->rate * (now - start) - (double)st->sent : kBatch;
      int n = due >= kBatch ? kBatch : (int)due;
      if (n > 0) {
        memset(msgs, 0, sizeof msgs);
        for (int i = 0; i < n; ++i) {
          uint32_t step = (uint32_t)s;
          memcpy(bufs[i], &step, sizeof step);
          memcpy(bufs[i] + sizeof step, &seq, sizeof seq);
          ++seq;
          if (work_us > 0) {
            const double done = LabNow() + work_us * 1e-6;
            while (LabNow() < done) {
            }
          }
          iov[i].iov_base = bufs[i];
          iov[i].iov_len = (size_t)payload;
          msgs[i].msg_hdr.msg_iov = &iov[i];
          msgs[i].msg_hdr.msg_iovlen = 1;
        }
        int sent = sendmmsg(fd, msgs, (unsigned)n, 0);
        if (sent > 0) {
          st->sent += (unsigned long long)sent;
          seq -= (uint64_t)(n - sent);
        } else {
          seq -= (uint64_t)n;
          if (errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED && errno != EINTR) {
            perror("sendmmsg");
            return 1;
          }
          ++st->send_errors;
        }
      }
      int got = Drain(fd, payload);
      now = LabNow();
      // Paced and nothing due: sleep a fraction of a packet gap (at most 1 ms).
      if (st->rate > 0 && n <= 0 && got == 0) {
        double gap = 1.0 / st->rate;
        Sleep(gap < 0.001 ? gap / 2 : 0.001);
        now = LabNow();
      }
      if (now - pass_start > st->stall) st->stall = now - pass_start;
    }
    st->seconds = now - start;
  }
  const double drain_end = LabNow() + 0.5;
  while (LabNow() < drain_end) {
    if (Drain(fd, payload) == 0) Sleep(0.005);
  }
  for (int s = 0; s < g_step_count; ++s) {
    const struct Step* st = &g_steps[s];
    printf("step=%d rate=%.0f sent=%llu echoed=%llu send_errors=%llu seconds=%.3f stall_ms=%.1f\n", s, st->rate,
           st->sent, st->echoed, st->send_errors, st->seconds, st->stall * 1e3);
  }
  return 0;
}
