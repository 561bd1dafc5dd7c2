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
//                the process "udpback" (forked: a server of its own, not a
//                thread the daemon follows) answers after sleeping WAIT_US, and
//                blocks in recv until the answer comes (one synchronous
//                DNS, memcached or RPC call per request): udpecho waits on
//                its peer while its own input fills and overflows;
//       stuck    as peer, but udpback never answers: udpecho asks it once
//                right after "ready", before reading its input, and stays
//                blocked in that receive until SECONDS pass (a server stuck
//                on a backend that stopped answering before anyone looked);
//                nothing is echoed;
//       deadlock udpecho takes a mutex before each receive that the thread
//                "udpholder" took first and keeps until SECONDS pass (it
//                sleeps 100 ms at a time holding it): udpecho is blocked on
//                the lock from its start, never reads its input, and
//                echoes nothing (a server deadlocked before anyone looked);
//       tcppeer  the same over TCP: udpecho sends the datagram on a TCP
//                connection to ADDR:PORT+1, where the process "tcpback"
//                reads it whole, sleeps WAIT_US and writes it back, and
//                reads the whole answer before its reply (a database or
//                RPC call on a kept-alive connection);
//       pool     as peer, and udpecho then hands the datagram to a pool of
//                two threads "udppool" (a queue under one mutex, a condition
//                variable each way), which make the K copies and echo it:
//                the pool waits on its futex for the work udpecho hands
//                over, udpecho on its peer;
//       convoy   three threads named udpecho read the socket, and each
//                makes the copies and echoes its datagram holding one
//                mutex, sleeping WAIT_US under it: each waits for the lock
//                its siblings hold (a lock convoy);
//       pipe     udpecho reads a token from a pipe before each reply; the
//                thread "udpslow" writes one every WAIT_US while the pipe
//                holds fewer than 16 (a slow producer): udpecho waits on
//                the pipe while its input overflows;
//       epoll    as wait, an event loop: udpecho waits for its input in
//                epoll_wait (the socket and an eventfd in its interest
//                list) before each receive;
//       idle     as wait, beside two threads that wait for work that never
//                comes and must never be named: "udpidle", an idle pool
//                worker on a condition variable nobody signals (a futex,
//                re-armed every 100 ms), and "udpquiet", a second server
//                blocked on its own empty input (a UDP socket on
//                ADDR:PORT+2 nothing is sent to).
//     The timer slack is 1 ns, so a wait lasts WAIT_US (0-1000000), not up
//     to 50 us more. On exit (deadline, SIGTERM or SIGINT) prints
//     "received=N echoed=M send_errors=E copies=K cpu=C mode=MODE wait_us=W".
//
// Bounded in time whatever arrives: every receive has a 100 ms timeout (the
// stuck mode's one question: SECONDS) and a wait is at most 1 s.
#define _GNU_SOURCE  // before any include: sched_setaffinity, recvmmsg
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab_common.h"

enum { kMaxDatagram = 65536 };

static int g_fd = -1;
static long g_wait_us = 0;
// The echoes' counts (in handoff mode only udpwork counts them, under the mutex).
static unsigned long long g_echoed = 0, g_send_errors = 0;

// The seeds' "additional packet copies": K copies of the datagram; the
// barrier keeps the compiler from removing copies nobody reads. Not inlined:
// the profile names it (lab.sh's cpu scenario), and inlined into main the
// loop's time read as main's once main had more modes to choose from.
__attribute__((noinline)) static void Copy(const char* buf, size_t n, long copies) {
  static char scratch[kMaxDatagram];
  for (long k = 0; k < copies; ++k) {
    memcpy(scratch, buf, n);
    __asm__ __volatile__("" : : "r"(scratch) : "memory");
  }
}

// Atomic: the pool's and the convoy's threads send too.
static void Send(const char* buf, size_t n, const struct sockaddr_in* peer, socklen_t peer_len) {
  if (sendto(g_fd, buf, n, 0, (const struct sockaddr*)peer, peer_len) == (ssize_t)n) {
    __atomic_add_fetch(&g_echoed, 1, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&g_send_errors, 1, __ATOMIC_RELAXED);
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
static int g_backend_silent = 0;  // the stuck mode: questions are read, never answered

static void* Backend(void* arg) {
  (void)arg;
  static char b[kMaxDatagram];
  while (!g_stop) {
    struct sockaddr_in from;
    socklen_t from_len = sizeof from;
    ssize_t n = recvfrom(g_backend_fd, b, sizeof b, 0, (struct sockaddr*)&from, &from_len);
    if (n < 0 || g_backend_silent) continue;  // the 100 ms timeout: look at g_stop again
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

// The pool: a queue of datagrams from udpecho to the udppool threads.
enum { kPoolThreads = 2, kPoolSlots = 64 };
static long g_copies = 0;
static struct {
  pthread_mutex_t lock;
  pthread_cond_t work, space;
  int head, count, done;
  struct {
    char buf[2048];
    size_t len;
    struct sockaddr_in peer;
    socklen_t peer_len;
  } slot[kPoolSlots];
} g_pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .space = PTHREAD_COND_INITIALIZER};

static void* PoolWorker(void* arg) {
  (void)arg;
  static __thread char b[2048];
  pthread_mutex_lock(&g_pool.lock);
  for (;;) {
    while (g_pool.count == 0 && !g_pool.done) pthread_cond_wait(&g_pool.work, &g_pool.lock);
    if (g_pool.count == 0) break;
    int i = g_pool.head;
    size_t n = g_pool.slot[i].len;
    struct sockaddr_in peer = g_pool.slot[i].peer;
    socklen_t peer_len = g_pool.slot[i].peer_len;
    memcpy(b, g_pool.slot[i].buf, n);
    g_pool.head = (i + 1) % kPoolSlots;
    --g_pool.count;
    pthread_cond_signal(&g_pool.space);
    pthread_mutex_unlock(&g_pool.lock);
    Copy(b, n, g_copies);
    Send(b, n, &peer, peer_len);
    pthread_mutex_lock(&g_pool.lock);
  }
  pthread_mutex_unlock(&g_pool.lock);
  return NULL;
}

static void PoolHandOff(const char* buf, size_t n, const struct sockaddr_in* peer, socklen_t peer_len) {
  if (n > sizeof g_pool.slot[0].buf) n = sizeof g_pool.slot[0].buf;
  pthread_mutex_lock(&g_pool.lock);
  while (g_pool.count == kPoolSlots) pthread_cond_wait(&g_pool.space, &g_pool.lock);
  int i = (g_pool.head + g_pool.count) % kPoolSlots;
  memcpy(g_pool.slot[i].buf, buf, n);
  g_pool.slot[i].len = n;
  g_pool.slot[i].peer = *peer;
  g_pool.slot[i].peer_len = peer_len;
  ++g_pool.count;
  pthread_cond_signal(&g_pool.work);
  pthread_mutex_unlock(&g_pool.lock);
}

// The convoy: every udpecho thread echoes under this mutex.
enum { kConvoyThreads = 3 };
static pthread_mutex_t g_convoy = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long g_convoy_received = 0;

static void* ConvoyLoop(void* arg) {
  static __thread char b[kMaxDatagram];
  const double deadline = *(const double*)arg;
  while (!g_stop && LabNow() < deadline) {
    struct sockaddr_in peer;
    socklen_t peer_len = sizeof peer;
    ssize_t n = recvfrom(g_fd, b, sizeof b, 0, (struct sockaddr*)&peer, &peer_len);
    if (n < 0) continue;  // the 100 ms timeout: look at the clock again
    __atomic_add_fetch(&g_convoy_received, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&g_convoy);
    Copy(b, (size_t)n, g_copies);
    Send(b, (size_t)n, &peer, peer_len);
    Wait();  // the mutex held
    pthread_mutex_unlock(&g_convoy);
  }
  return NULL;
}

// The deadlock: udpholder holds g_held from before "ready" until the
// deadline (or a signal), looking at the clock every 100 ms.
static pthread_mutex_t g_held = PTHREAD_MUTEX_INITIALIZER;
static int g_holding = 0;

static void* Holder(void* arg) {
  const double deadline = *(const double*)arg;
  pthread_mutex_lock(&g_held);
  __atomic_store_n(&g_holding, 1, __ATOMIC_RELEASE);
  struct timespec tenth = {.tv_sec = 0, .tv_nsec = 100000000};
  while (!g_stop && LabNow() < deadline) nanosleep(&tenth, NULL);
  pthread_mutex_unlock(&g_held);
  return NULL;
}

// The slow producer: a token into the pipe every WAIT_US while it holds
// fewer than 16 (FIONREAD), so tokens do not pile up in the light steps.
static int g_pipe[2] = {-1, -1};

static void* SlowProducer(void* arg) {
  (void)arg;
  while (!g_stop) {
    Wait();
    int queued = 0;
    if (ioctl(g_pipe[1], FIONREAD, &queued) != 0 || queued < 16) (void)!write(g_pipe[1], "t", 1);
  }
  close(g_pipe[1]);  // the reader's read returns 0: no wait past the end
  return NULL;
}

// The idle mode's bystanders (see the top): each waits until g_stop, in
// 100 ms waits, counting nothing.
static pthread_mutex_t g_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_idle_work = PTHREAD_COND_INITIALIZER;
static int g_quiet_fd = -1;

static void* IdleWorker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&g_idle_lock);
  while (!g_stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100000000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&g_idle_work, &g_idle_lock, &until);
  }
  pthread_mutex_unlock(&g_idle_lock);
  return NULL;
}

static void* QuietServer(void* arg) {
  (void)arg;
  char byte;
  while (!g_stop) (void)!recv(g_quiet_fd, &byte, 1, 0);  // 100 ms receive timeout
  return NULL;
}

// The backend is a process of its own (named NAME), as a DNS server,
// memcached or a database is: not a thread of the server the daemon
// follows. It stops on SIGTERM (within its 100 ms receive timeout) and when
// the server dies (PR_SET_PDEATHSIG). The child's pid, or -1 (said).
static pid_t StartBackend(const char* name, void* (*serve)(void*)) {
  const pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return -1;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (getppid() != parent) _exit(0);  // the server died before the line above
    prctl(PR_SET_NAME, name, 0, 0, 0);
    close(g_fd);
    close(g_ask_fd);
    serve(NULL);
    _exit(0);
  }
  return child;
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
  const int idle = strcmp(mode, "idle") == 0, epoll_mode = strcmp(mode, "epoll") == 0;
  const int wait = strcmp(mode, "wait") == 0 || idle || epoll_mode, handoff = strcmp(mode, "handoff") == 0;
  const int pool = strcmp(mode, "pool") == 0, convoy = strcmp(mode, "convoy") == 0,
            pipe_mode = strcmp(mode, "pipe") == 0;
  const int stuck = strcmp(mode, "stuck") == 0, deadlock = strcmp(mode, "deadlock") == 0;
  const int peer_mode = strcmp(mode, "peer") == 0 || pool || stuck, tcp_peer = strcmp(mode, "tcppeer") == 0;
  const int known =
      wait || handoff || peer_mode || tcp_peer || convoy || pipe_mode || deadlock || strcmp(mode, "echo") == 0;
  if ((argc != 6 && !(argc == 8 && known && LabParseDouble(argv[7], 0, 1000000, &wait_d))) ||
      !LabParseDouble(argv[2], 1, 65535, &port_d) || !LabParseDouble(argv[3], 1, 3600, &seconds_d) ||
      !LabParseDouble(argv[4], -1, 4095, &cpu_d) || !LabParseDouble(argv[5], 0, 1000000, &copies_d)) {
    fprintf(stderr,
            "usage: lab_echo_server ADDR PORT SECONDS(1-3600) CPU(-1: any) K(0-1000000) "
            "[echo|wait|handoff|peer|stuck|deadlock|tcppeer|pool|convoy|pipe|idle|epoll WAIT_US(0-1000000)]\n");
    return 2;
  }
  const long port = (long)port_d, seconds = (long)seconds_d, cpu = (long)cpu_d, copies = (long)copies_d;
  g_wait_us = (long)wait_d;
  g_backend_silent = stuck;
  g_copies = copies;
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
  pthread_t worker;
  pid_t backend = -1;
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
    if ((backend = StartBackend("udpback", Backend)) < 0) return 1;
    close(g_backend_fd);
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
    if ((backend = StartBackend("tcpback", TcpBackend)) < 0) return 1;
    close(g_listen_fd);
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

  pthread_t pool_threads[kPoolThreads], convoy_threads[kConvoyThreads - 1], producer;
  for (int i = 0; pool && i < kPoolThreads; ++i) {
    int err = pthread_create(&pool_threads[i], NULL, PoolWorker, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(pool_threads[i], "udppool");
  }
  if (pipe_mode) {
    if (pipe(g_pipe) != 0) {
      perror("pipe");
      return 1;
    }
    int err = pthread_create(&producer, NULL, SlowProducer, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(producer, "udpslow");
  }

  pthread_t bystanders[2];
  if (idle) {
    if (port >= 65534) {
      fprintf(stderr, "lab_echo_server: idle mode needs PORT+2 for its quiet server\n");
      return 2;
    }
    if ((g_quiet_fd = BoundSocket(&addr.sin_addr, port + 2)) < 0) return 1;
    int err = pthread_create(&bystanders[0], NULL, IdleWorker, NULL);
    if (err == 0) err = pthread_create(&bystanders[1], NULL, QuietServer, NULL);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(bystanders[0], "udpidle");
    pthread_setname_np(bystanders[1], "udpquiet");
  }

  // The event loop's interest list: its input and an eventfd (an event
  // loop's wakeup channel), as servers built on epoll hold them.
  int ep = -1, wake = -1;
  if (epoll_mode) {
    ep = epoll_create1(EPOLL_CLOEXEC);
    wake = eventfd(0, EFD_CLOEXEC);
    struct epoll_event in = {.events = EPOLLIN, .data.fd = g_fd}, ev = {.events = EPOLLIN, .data.fd = wake};
    if (ep < 0 || wake < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, g_fd, &in) != 0 ||
        epoll_ctl(ep, EPOLL_CTL_ADD, wake, &ev) != 0) {
      perror("epoll");
      return 1;
    }
  }

  static char buf[kMaxDatagram];
  unsigned long long received = 0;
  int rc = 0;
  const double deadline = LabNow() + (double)seconds;
  // The convoy's other readers (named udpecho, as the main thread is).
  for (int i = 0; convoy && i < kConvoyThreads - 1; ++i) {
    int err = pthread_create(&convoy_threads[i], NULL, ConvoyLoop, (void*)&deadline);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
  }
  pthread_t holder;
  if (deadlock) {
    int err = pthread_create(&holder, NULL, Holder, (void*)&deadline);
    if (err != 0) {
      fprintf(stderr, "lab_echo_server: pthread_create: %s\n", strerror(err));
      return 1;
    }
    pthread_setname_np(holder, "udpholder");
    while (!__atomic_load_n(&g_holding, __ATOMIC_ACQUIRE)) sched_yield();
  }
  printf("ready port=%ld cpu=%ld copies=%ld mode=%s wait_us=%ld\n", port, cpu, copies, mode, g_wait_us);
  fflush(stdout);
  if (stuck) {
    // One question, before the input is read: the answer never comes, so
    // the receive ends at the deadline (or on SIGTERM: a receive with a
    // timeout is not restarted after a signal).
    struct timeval all = {.tv_sec = seconds, .tv_usec = 0};
    setsockopt(g_ask_fd, SOL_SOCKET, SO_RCVTIMEO, &all, sizeof all);
    buf[0] = '?';
    Ask(buf, 1);
  }
  if (convoy) {
    ConvoyLoop((void*)&deadline);
    for (int i = 0; i < kConvoyThreads - 1; ++i) pthread_join(convoy_threads[i], NULL);
    received = g_convoy_received;
  }
  while (!g_stop && !convoy) {
    // The clock is read every 256 datagrams (and on every timeout): under
    // load the loop is the work being measured.
    if ((received & 255) == 0 && LabNow() >= deadline) break;
    if (epoll_mode) {
      struct epoll_event ready;
      const int n = epoll_wait(ep, &ready, 1, 100);  // bounded: the deadline is read on a timeout
      if (n <= 0) {
        if ((n == 0 || errno == EINTR) && LabNow() < deadline) continue;
        break;
      }
    }
    if (deadlock) {
      // Blocked here from the start: udpholder gives the lock back only
      // at the deadline.
      pthread_mutex_lock(&g_held);
      pthread_mutex_unlock(&g_held);
      if (LabNow() >= deadline || g_stop) break;
    }
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
    if (!pool) Copy(buf, (size_t)n, copies);  // the pool's threads make them
    if (handoff) {
      HandOff(buf, (size_t)n, &peer, peer_len);
    } else {
      if (peer_mode) Ask(buf, (size_t)n);
      if (tcp_peer) AskTcp(buf, (size_t)n);
      if (pipe_mode) {
        char token;
        if (read(g_pipe[0], &token, 1) != 1) break;  // the producer stopped
      }
      if (pool) {
        PoolHandOff(buf, (size_t)n, &peer, peer_len);
      } else {
        Send(buf, (size_t)n, &peer, peer_len);
      }
      if (wait) Wait();
    }
  }
  if (handoff) StopWorker(worker);
  if (pool) {
    pthread_mutex_lock(&g_pool.lock);
    g_pool.done = 1;
    pthread_cond_broadcast(&g_pool.work);
    pthread_mutex_unlock(&g_pool.lock);
    for (int i = 0; i < kPoolThreads; ++i) pthread_join(pool_threads[i], NULL);
  }
  if (pipe_mode) {
    g_stop = 1;
    pthread_join(producer, NULL);  // within one WAIT_US
  }
  if (epoll_mode) {
    close(ep);
    close(wake);
  }
  if (idle) {
    g_stop = 1;
    for (int i = 0; i < 2; ++i) pthread_join(bystanders[i], NULL);  // within 100 ms
  }
  if (deadlock) pthread_join(holder, NULL);  // it gave the lock back to end udpecho's wait
  if (peer_mode || tcp_peer) {
    kill(backend, SIGTERM);
    waitpid(backend, NULL, 0);  // within its 100 ms receive timeout
  }
  printf("received=%llu echoed=%llu send_errors=%llu copies=%ld cpu=%ld mode=%s wait_us=%ld\n", received, g_echoed,
         g_send_errors, copies, cpu, mode, g_wait_us);
  return rc;
}
