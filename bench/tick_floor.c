// The physical floor of one tick (issue 32): the same kernel files the daemon
// reads in a tick, read bare (open, read to the end, close; a directory
// opened and listed), with no parsing, in a loop; prints the CPU a tick of
// these reads costs. bench/tick_floor.sh makes the list from an strace of the
// daemon and compares its tick with this.
//
// usage: tick_floor LIST TICKS ITERATIONS
// LIST: one line per file, "COUNT file PATH", "COUNT dir PATH" or
// "COUNT ethtool IFNAME" (the driver's statistics: ETHTOOL_GSSET_INFO and
// ETHTOOL_GSTATS through SIOCETHTOOL, as the netdev collector asks), COUNT
// the times the daemon read it over TICKS ticks. The list is read
// ITERATIONS times over; the CPU is divided by ITERATIONS x TICKS.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

struct item {
  int count;
  char kind;  // 'f', 'd', 'e'
  char path[512];
};

static char buf[1 << 20];

static void read_file(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  off_t off = 0;
  for (ssize_t n; (n = pread(fd, buf, sizeof buf, off)) > 0;) off += n;
  close(fd);
}

static void list_dir(const char* path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0) {
  }
  close(fd);
}

static void ethtool_stats(int sock, const char* ifname) {
  struct {
    struct ethtool_sset_info hdr;
    uint32_t len;
  } sset = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS}};
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
  ifr.ifr_data = (void*)&sset;
  if (ioctl(sock, SIOCETHTOOL, &ifr) != 0 || sset.len == 0 || sset.len > 4096) return;
  struct ethtool_stats* st = (struct ethtool_stats*)buf;
  st->cmd = ETHTOOL_GSTATS;
  st->n_stats = sset.len;
  ifr.ifr_data = (void*)st;
  ioctl(sock, SIOCETHTOOL, &ifr);
}

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: tick_floor LIST TICKS ITERATIONS\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static struct item items[4096];
  int n = 0;
  char kind[16];
  while (n < 4096 && fscanf(f, "%d %15s %511s", &items[n].count, kind, items[n].path) == 3) {
    items[n].kind = kind[0];
    ++n;
  }
  fclose(f);
  int ticks = atoi(argv[2]);
  int iterations = atoi(argv[3]);
  if (ticks < 1 || iterations < 1) {
    fprintf(stderr, "tick_floor: TICKS and ITERATIONS must be at least 1\n");
    return 2;
  }
  int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  double t0 = cpu_seconds();
  for (int it = 0; it < iterations; ++it)
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < items[i].count; ++c) {
        if (items[i].kind == 'f') read_file(items[i].path);
        if (items[i].kind == 'd') list_dir(items[i].path);
        if (items[i].kind == 'e' && sock >= 0) ethtool_stats(sock, items[i].path);
      }
  double t1 = cpu_seconds();
  printf("%.1f\n", (t1 - t0) * 1e6 / iterations / ticks);
  return 0;
}
