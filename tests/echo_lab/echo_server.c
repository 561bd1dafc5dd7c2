// The UDP echo server of the echo lab (tests/echo_lab/README.md): the seeds'
// benchmark, a user-level echo that makes K extra copies of every datagram
// before sending it back, and two echoes that wait instead of computing.
//
//   lab_echo_server ADDR PORT SECONDS CPU K [MODE WAIT_US]
//     binds ADDR:PORT, pins itself to CPU (-1: anywhere), names its receiving
//     thread "udpecho" (what the daemon's threads collector targets), and for
//     at most SECONDS echoes every datagram to its sender after copying it K
//     times into a scratch buffer. MODE:
//       echo     (the default) nothing more; WAIT_US unused;
//       wait     udpecho then sleeps WAIT_US microseconds (clock_nanosleep)
//                after each datagram: an echo that waits between datagrams,
//                its CPU mostly idle;
//       handoff  udpecho makes the copies, then hands the datagram over one
//                mutex (a one-slot handoff with two condition variables) to
//                the thread "udpwork", which echoes it and sleeps WAIT_US
//                while still holding the mutex: udpecho spends its time
//                waiting for the lock;
//       peer     udpecho asks a backend before each reply: it sends the
//                datagram on a UDP socket connected to ADDR:PORT+1, where
//                the thread "udpback" answers after sleeping WAIT_US, and
//                blocks in recv until the answer comes (one synchronous
//                DNS, memcached or RPC call per request): udpecho waits on
//                its peer while its own input fills and overflows;
//       tcppeer  the same over TCP: udpecho sends the datagram on a TCP
//                connection to ADDR:PORT+1, where the thread "tcpback"
//                reads it whole, sleeps WAIT_US and writes it back, and
//                reads the whole answer before its reply (a database or
//                RPC call on a kept-alive connection).
//     The timer slack is 1 ns, so a wait lasts WAIT_US (0-1000000), not up
//     to 50 us more. On exit (deadline, SIGTERM or SIGINT) prints
//     "received=N echoed=M send_errors=E copies=K cpu=C mode=MODE wait_us=W".
//
// Bounded in time whatever arrives: every receive has a 100 ms timeout and a
// wait is at most 1 s.
#define _GNU_SOURCE  // before any include: sched_setaffinity, recvmmsg
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lab_common.h"

enum { kMaxDatagram = 65536 };

static int g_fd = -1;
static long g_wait_us = 0;
// The echoes' counts (in handoff mode only udpwork counts them, under the mutex).
static unsigned long long g_echoed = 0, g_send_errors = 0;

// The seeds' "additional packet copies": K copies of the datagram; the
// barrier keeps the compiler from removing copies nobody reads.
static void Copy(const char* buf, size_t n, long copies) {
  static char scratch[kMaxDatagram];
  for (long k = 0; k < copies; ++k) {
    memcpy(scratch, buf, n);
    __asm__ __volatile__("" : : "r"(scratch) : "memory");
  }
}

static void Send(const char* buf, size_t n, const struct sockaddr_in* peer, socklen_t peer_len) {
  if (sendto(g_fd, buf, n, 0, (const struct sockaddr*)peer, peer_len) == (ssize_t)n) {
    ++g_echoed;
  } else {
    ++g_send_errors;
  }
}

static void Wait(void) {
  struct timespec ts = {g_wait_us / 1000000, (g_wait_us % 1000000) * 1000};
  while (!g_stop && clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

// The handoff: one datagram at a time from udpecho to udpwork.
static struct {
  pthread_mutex_t lock;
  pthread_cond_t filled, emptied;
  int full, done;
  char buf[kMaxDatagram];
  size_t len;
  struct sockaddr_in peer;
  socklen_t peer_len;
} g_slot = {.lock = PTHREAD_MUTEX_INITIALIZER, .filled = PTHREAD_COND_INITIALIZER, .emptied = PTHREAD_COND_INITIALIZER};

static void* Worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&g_slot.lock);
  for (;;) {
    while (!g_slot.full && !g_slot.done) pthread_cond_wait(&g_slot.filled, &g_slot.lock);
    if (!g_slot.full) break;
    Send(g_slot.buf, g_slot.len, &g_slot.peer, g_slot.peer_len);
    Wait();  // the mutex held
    g_slot.full = 0;
    pthread_cond_signal(&g_slot.emptied);
  }
  pthread_mutex_unlock(&g_slot.lock);
  return NULL;
}

static void HandOff(const char* buf, size_t n, const struct sockaddr_in* peer, socklen_t peer_len) {
  pthread_mutex_lock(&g_slot.lock);
  while (g_slot.full) pthread_cond_wait(&g_slot.emptied, &g_slot.lock);
  memcpy(g_slot.buf, buf, n);
  g_slot.len = n;
  g_slot.peer = *peer;
  g_slot.peer_len = peer_len;
  g_slot.full = 1;
  pthread_cond_signal(&g_slot.filled);
  pthread_mutex_unlock(&g_slot.lock);
}

// The peer: udpback answers each question on the backend socket after
// WAIT_US; udpecho asks on a socket connected to it and waits for the answer.
static int g_backend_fd = -1, g_ask_fd = -1;

static void* Backend(void* arg) {
  (void)arg;
  static char b[kMaxDatagram];
  while (!g_stop) {
    struct sockaddr_in from;
    socklen_t from_len = sizeof from;
    ssize_t n = recvfrom(g_backend_fd, b, sizeof b, 0, (struct sockaddr*)&from, &from_len);
    if (n < 0) continue;  // the 100 ms timeout: look at g_stop again
    Wait();
    (void)sendto(g_backend_fd, b, (size_t)n, 0, (struct sockaddr*)&from, from_len);
  }
  return NULL;
}

// Asks the backend and waits for its answer (or the 100 ms timeout).
static void Ask(char* buf, size_t n) {
  if (send(g_ask_fd, buf, n, 0) != (ssize_t)n) return;
  (void)recv(g_ask_fd, buf, kMaxDatagram, 0);
}

// Over TCP, a message is a 4-byte length and its bytes; each side reads a
// whole one (every read bounded by the 100 ms timeout).
static int ReadAll(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t got = recv(fd, p, n, 0);
    if (got <= 0) return -1;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static int Message(int fd, char* buf, uint32_t* n) {
  if (ReadAll(fd, (char*)n, sizeof *n) != 0 || *n > kMaxDatagram) return -1;
  return ReadAll(fd, buf, *n);
}

// One send per message (length and bytes together): two would wait on
// Nagle's algorithm for the first one's delayed ACK (40 ms a message).
static int SendMessage(int fd, const char* buf, uint32_t n) {
  struct iovec iov[2] = {{.iov_base = &n, .iov_len = sizeof n}, {.iov_base = (void*)buf, .iov_len = n}};
  struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
  return sendmsg(fd, &msg, MSG_NOSIGNAL) == (ssize_t)(sizeof n + n) ? 0 : -1;
}

static int g_listen_fd = -1;

static void* TcpBackend(void* arg) {
  (void)arg;
  static char b[kMaxDatagram];
  int fd = -1;
  while (!g_stop && fd < 0) fd = accept(g_listen_fd, NULL, NULL);  // the 100 ms timeout: look again
  struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};
  int one = 1;
  if (fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  while (!g_stop && fd >= 0) {
    uint32_t n = 0;
    if (Message(fd, b, &n) != 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      break;  // the connection closed
    }
    Wait();
    if (SendMessage(fd, b, n) != 0) break;
  }
  if (fd >= 0) close(fd);
  return NULL;
}

static void AskTcp(char* buf, size_t n) {
  uint32_t got = 0;
  if (SendMessage(g_ask_fd, buf, (uint32_t)n) == 0) (void)Message(g_ask_fd, buf, &got);
}

// A UDP socket bound to addr:port with the 100 ms receive timeout; -1 on failure (said).
static int BoundSocket(const struct in_addr* addr, long port) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr = *addr};
  if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    perror("socket or bind");
    if (fd >= 0) close(fd);
    return -1;
  }
  struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static void StopWorker(pthread_t worker) {
  pthread_mutex_lock(&g_slot.lock);
  g_slot.done = 1;
  pthread_cond_signal(&g_slot.filled);
  pthread_mutex_unlock(&g_slot.lock);
  pthread_join(worker, NULL);
}

int main(int argc, char** argv) {
  double port_d, seconds_d, cpu_d, copies_d, wait_d = 0;
  const char* mode = argc == 8 ? argv[6] : "echo";
  const int wait = strcmp(mode, "wait") == 0, handoff = strcmp(mode, "handoff") == 0;
  const int peer_mode = strcmp(mode, "peer") == 0, tcp_peer = strcmp(mode, "tcppeer") == 0;
  const int known = wait || handoff || peer_mode || tcp_peer || strcmp(mode, "echo") == 0;
  if ((argc != 6 && !(argc == 8 && known && LabParseDouble(argv[7], 0, 1000000, &wait_d))) ||
      !LabParseDouble(argv[2], 1, 65535, &port_d) || !LabParseDouble(argv[3], 1, 3600, &seconds_d) ||
      !LabParseDouble(argv[4], -1, 4095, &cpu_d) || !LabParseDouble(argv[5], 0, 1000000, &copies_d)) {
    fprintf(stderr,
            "usage: lab_echo_server ADDR PORT SECONDS(1-3600) CPU(-1: any) K(0-1000000) "
            "[echo|wait|handoff|peer|tcppeer WAIT_US(0-1000000)]\n");
    return 2;
  }
  const long port = (long)port_d, seconds = (long)seconds_d, cpu = (long)cpu_d, copies = (long)copies_d;
  g_wait_us = (long)wait_d;
  if (LabPin((int)cpu) != 0) return 1;  // udpwork inherits the CPU and the timer slack
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  prctl(PR_SET_NAME, "udpecho", 0, 0, 0);
  LabStopOnSignals();

  g_fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (g_fd < 0) {
    perror("socket");
    return 1;
  }
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
    fprintf(stderr, "lab_echo_server: bad address %s\n", argv[1]);
    return 2;
  }
  if (bind(g_fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    perror("bind");
    return 1;
  }
  struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};
  setsockopt(g_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  pthread_t worker, backend;
  if (peer_mode) {
    if (port >= 65535) {
      fprintf(stderr, "lab_echo_server: peer mode needs PORT+1 for the backend\n");
      return 2;
    }
    struct sockaddr_in back = {
        .sin_family = AF_INET, .sin_port = htons((uint16_t)(port + 1)), .sin_addr = addr.sin_addr};
    g_backend_fd = BoundSocket(&addr.sin_addr, port + 1);
    g_ask_fd = BoundSocket(&addr.sin_addr, 0);
    if (g_backend_fd < 0 || g_ask_fd < 0) return 1;
    if (connect(g_ask_fd, (struct sockaddr*)&back, sizeof back) != 0) {
      perror("connect");
      return 1;
    }
    int err = pthread_create(&backend, NULL, Backend, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(backend, "udpback");
  }
  if (tcp_peer) {
    if (port >= 65535) {
      fprintf(stderr, "lab_echo_server: tcppeer mode needs PORT+1 for the backend\n");
      return 2;
    }
    struct sockaddr_in back = {
        .sin_family = AF_INET, .sin_port = htons((uint16_t)(port + 1)), .sin_addr = addr.sin_addr};
    g_listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    g_ask_fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    if (g_listen_fd < 0 || g_ask_fd < 0 || setsockopt(g_listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(g_listen_fd, (struct sockaddr*)&back, sizeof back) != 0 || listen(g_listen_fd, 1) != 0) {
      perror("tcp backend socket, bind or listen");
      return 1;
    }
    setsockopt(g_listen_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(g_ask_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(g_ask_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int err = pthread_create(&backend, NULL, TcpBackend, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(backend, "tcpback");
    if (connect(g_ask_fd, (struct sockaddr*)&back, sizeof back) != 0) {
      perror("connect");
      return 1;
    }
  }
  if (handoff) {
    int err = pthread_create(&worker, NULL, Worker, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(worker, "udpwork");
  }

  static char buf[kMaxDatagram];
  unsigned long long received = 0;
  int rc = 0;
  const double deadline = LabNow() + (double)seconds;
  printf("ready port=%ld cpu=%ld copies=%ld mode=%s wait_us=%ld\n", port, cpu, copies, mode, g_wait_us);
  fflush(stdout);
  while (!g_stop) {
    // The clock is read every 256 datagrams (and on every timeout): under
    // load the loop is the work being measured.
    if ((received & 255) == 0 && LabNow() >= deadline) break;
    struct sockaddr_in peer;
    socklen_t peer_len = sizeof peer;
    ssize_t n = recvfrom(g_fd, buf, sizeof buf, 0, (struct sockaddr*)&peer, &peer_len);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        if (LabNow() >= deadline) break;
        continue;
      }
      perror("recvfrom");
      rc = 1;
      break;
    }
    ++received;
    Copy(buf, (size_t)n, copies);
    if (handoff) {
      HandOff(buf, (size_t)n, &peer, peer_len);
    } else {
      if (peer_mode) Ask(buf, (size_t)n);
      if (tcp_peer) AskTcp(buf, (size_t)n);
      Send(buf, (size_t)n, &peer, peer_len);
      if (wait) Wait();
    }
  }
  if (handoff) StopWorker(worker);
  if (peer_mode || tcp_peer) {
    g_stop = 1;
    pthread_join(backend, NULL);  // within its 100 ms receive timeout
  }
  printf("received=%llu echoed=%llu send_errors=%llu copies=%ld cpu=%ld mode=%s wait_us=%ld\n", received, g_echoed,
         g_send_errors, copies, cpu, mode, g_wait_us);
  return rc;
}
