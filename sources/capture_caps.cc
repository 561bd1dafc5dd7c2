// The capture's privileges and filter check: dropping CAP_NET_RAW and
// CAP_NET_ADMIN once the captures are open (raw capget/capset, no libcap),
// asking whether CAP_NET_RAW is held, and compiling a BPF filter without a
// device. Capabilities are per thread on Linux: everything here acts on the
// calling thread only.
#include <linux/capability.h>
#include <pcap/pcap.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "sources/capabilities.h"
#include "sources/capture.h"

namespace bottleneckd {
namespace {

struct CapSets {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};  // pid 0: the calling thread
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
};

struct NamedCap {
  int cap;
  const char* name;
};
constexpr NamedCap kCaptureCaps[] = {{CAP_NET_RAW, "CAP_NET_RAW"}, {CAP_NET_ADMIN, "CAP_NET_ADMIN"}};

uint32_t Bit(int cap) { return 1u << (cap % 32); }
size_t Word(int cap) { return static_cast<size_t>(cap / 32); }

Status GetCaps(CapSets* c) {
  if (syscall(SYS_capget, &c->header, c->data) != 0) return Status::FromErrno(errno, "capget");
  return Status::OK();
}

bool InBoundingSet(int cap) { return prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1; }

bool InAmbientSet(int cap) { return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1; }

}  // namespace

Status DropCaptureCapabilities(std::string* what) {
  what->clear();
  CapSets c;
  BN_RETURN_IF_ERROR(GetCaps(&c));
  std::string dropped, bounding_kept;
  bool change_sets = false;
  for (const NamedCap& nc : kCaptureCaps) {
    __user_cap_data_struct& d = c.data[Word(nc.cap)];
    const uint32_t bit = Bit(nc.cap);
    const bool in_sets = ((d.effective | d.permitted | d.inheritable) & bit) != 0;
    bool held = in_sets || InAmbientSet(nc.cap);
    change_sets = change_sets || in_sets;
    d.effective &= ~bit;
    d.permitted &= ~bit;
    d.inheritable &= ~bit;
    // Ambient capabilities leave with the permitted or inheritable bit
    // anyway; lowering first says so explicitly (EINVAL: a kernel without
    // ambient capabilities).
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, nc.cap, 0, 0);
    // The bounding set keeps an execve'd file-capability program from getting
    // it back; dropping it needs CAP_SETPCAP (EPERM without), and EINVAL
    // means the kernel does not know the capability.
    if (InBoundingSet(nc.cap)) {
      if (prctl(PR_CAPBSET_DROP, nc.cap, 0, 0, 0) == 0) {
        held = true;
      } else if (errno == EPERM || errno == EINVAL) {
        if (!bounding_kept.empty()) bounding_kept += ", ";
        bounding_kept += nc.name;
      } else {
        return Status::FromErrno(errno, std::string("prctl(PR_CAPBSET_DROP, ") + nc.name + ")");
      }
    }
    if (held) {
      if (!dropped.empty()) dropped += ", ";
      dropped += nc.name;
    }
  }
  if (change_sets && syscall(SYS_capset, &c.header, c.data) != 0) return Status::FromErrno(errno, "capset");
  *what = dropped.empty() ? "held none" : "dropped " + dropped;
  if (!bounding_kept.empty()) *what += "; bounding set still has " + bounding_kept + " (no CAP_SETPCAP)";
  return Status::OK();
}

bool HaveEffectiveCapability(int cap) {
  if (cap < 0 || Word(cap) >= _LINUX_CAPABILITY_U32S_3) return false;
  CapSets c;
  if (!GetCaps(&c).ok()) return false;
  return (c.data[Word(cap)].effective & Bit(cap)) != 0;
}

bool HaveNetRaw() { return HaveEffectiveCapability(CAP_NET_RAW); }

Status CheckCaptureFilter(const std::string& filter, int linktype) {
  pcap_t* p = pcap_open_dead(linktype, 65535);
  if (p == nullptr)
    return Status::InvalidArgument("filter \"" + filter + "\": cannot compile for link type " +
                                   std::to_string(linktype));
  bpf_program prog{};
  Status s;
  if (pcap_compile(p, &prog, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
    s = Status::InvalidArgument("filter \"" + filter + "\": " + pcap_geterr(p));
  } else {
    pcap_freecode(&prog);
  }
  pcap_close(p);
  return s;
}

}  // namespace bottleneckd
