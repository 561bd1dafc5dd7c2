// The UDP echo server of the echo lab (tests/echo_lab/README.md): the seeds'
// benchmark, a user-level echo that makes K extra copies of every datagram
// before sending it back.
//
//   lab_echo_server ADDR PORT SECONDS CPU K
//     binds ADDR:PORT, pins itself to CPU (-1: anywhere), names its thread
//     "udpecho" (what the daemon's threads collector targets), and for at most
//     SECONDS echoes every datagram to its sender after copying it K times
//     into a scratch buffer. On exit (deadline, SIGTERM or SIGINT) prints
//     "received=N echoed=M send_errors=E copies=K cpu=C".
//
// Bounded in time whatever arrives: the receive has a 100 ms timeout.
#define _GNU_SOURCE  // before any include: sched_setaffinity, recvmmsg
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab_common.h"

enum { kMaxDatagram = 65536 };

int main(int argc, char** argv) {
  double port_d, seconds_d, cpu_d, copies_d;
  if (argc != 6 || !LabParseDouble(argv[2], 1, 65535, &port_d) || !LabParseDouble(argv[3], 1, 3600, &seconds_d) ||
      !LabParseDouble(argv[4], -1, 4095, &cpu_d) || !LabParseDouble(argv[5], 0, 1000000, &copies_d)) {
    fprintf(stderr, "usage: lab_echo_server ADDR PORT SECONDS(1-3600) CPU(-1: any) K(0-1000000)\n");
    return 2;
  }
  const long port = (long)port_d, seconds = (long)seconds_d, cpu = (long)cpu_d, copies = (long)copies_d;
  if (LabPin((int)cpu) != 0) return 1;
  prctl(PR_SET_NAME, "udpecho", 0, 0, 0);
  LabStopOnSignals();

  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("socket");
    return 1;
  }
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
    fprintf(stderr, "lab_echo_server: bad address %s\n", argv[1]);
    return 2;
  }
  if (bind(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    perror("bind");
    return 1;
  }
  struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

  static char buf[kMaxDatagram], scratch[kMaxDatagram];
  unsigned long long received = 0, echoed = 0, send_errors = 0;
  const double deadline = LabNow() + (double)seconds;
  printf("ready port=%ld cpu=%ld copies=%ld\n", port, cpu, copies);
  fflush(stdout);
  while (!g_stop) {
    // The clock is read every 256 datagrams (and on every timeout): under
    // load the loop is the work being measured.
    if ((received & 255) == 0 && LabNow() >= deadline) break;
    struct sockaddr_in peer;
    socklen_t peer_len = sizeof peer;
    ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr*)&peer, &peer_len);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        if (LabNow() >= deadline) break;
        continue;
      }
      perror("recvfrom");
      return 1;
    }
    ++received;
    // The seeds' "additional packet copies": K copies of the datagram; the
    // barrier keeps the compiler from removing copies nobody reads.
    for (long k = 0; k < copies; ++k) {
      memcpy(scratch, buf, (size_t)n);
      __asm__ __volatile__("" : : "r"(scratch) : "memory");
    }
    if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr*)&peer, peer_len) == n) {
      ++echoed;
    } else {
      ++send_errors;
    }
  }
  printf("received=%llu echoed=%llu send_errors=%llu copies=%ld cpu=%ld\n", received, echoed, send_errors, copies, cpu);
  return 0;
}
