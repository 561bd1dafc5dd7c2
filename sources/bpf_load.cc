#include "sources/bpf_load.h"

#include <bpf/libbpf.h>
#include <linux/capability.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/log.h"
#include "base/mutex.h"
#include "sources/capabilities.h"

namespace bottleneckd {
namespace {

Mutex g_print_mu;
std::string* g_print_sink GUARDED_BY(g_print_mu) = nullptr;

int LibbpfPrint(enum libbpf_print_level level, const char* fmt, va_list args) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, args);
  {
    MutexLock l(&g_print_mu);
    if (g_print_sink != nullptr) {
      *g_print_sink += buf;
      return 0;
    }
  }
  if (level != LIBBPF_DEBUG) {
    std::string line(buf);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    Log(LogLevel::kDebug, "libbpf", {{"msg", line}});
  }
  return 0;
}

}  // namespace

void InstallLibbpfPrint() {
  static const bool installed = [] {
    libbpf_set_print(LibbpfPrint);
    return true;
  }();
  (void)installed;
}

CaptureLibbpf::CaptureLibbpf(std::string* sink) {
  MutexLock l(&g_print_mu);
  g_print_sink = sink;
}

CaptureLibbpf::~CaptureLibbpf() {
  MutexLock l(&g_print_mu);
  g_print_sink = nullptr;
}

std::string WhyFromLibbpf(const std::string& text) {
  std::string last, verifier_last;
  bool in_log = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find("-- BEGIN PROG LOAD LOG --") != std::string::npos) {
      in_log = true;
    } else if (line.find("-- END PROG LOAD LOG --") != std::string::npos) {
      in_log = false;
    } else if (!line.empty()) {
      (in_log ? verifier_last : last) = line;
    }
  }
  if (!verifier_last.empty()) return verifier_last;
  if (last.rfind("libbpf: ", 0) == 0) last.erase(0, 8);
  return last;
}

Status BpfLoadError(std::string_view what, int err, const std::string& libbpf_text, std::string_view missing) {
  err = err < 0 ? -err : err;
  std::string why = WhyFromLibbpf(libbpf_text);
  std::string msg = std::string(what) + ": " + std::strerror(err);
  if (!why.empty()) msg += " (" + why + ")";
  switch (err) {
    case EPERM:
      return Status::PermissionDenied(msg +
                                      "; the kernel refused BPF (lockdown, a seccomp filter or a user namespace)");
    case ENOENT:
    case ESRCH:
      return Status::NotFound(msg + "; a tracepoint the program needs (" + std::string(missing) + ") is missing");
    case EACCES:
    case EINVAL:
    case E2BIG: return Status::NotSupported(msg + "; the kernel's verifier refused the program");
    default: return Status::IOError(msg);
  }
}

Status CheckBpfPrivileges() {
  if (HaveEffectiveCapability(CAP_SYS_ADMIN)) return Status::OK();
  const bool bpf = HaveEffectiveCapability(CAP_BPF), perfmon = HaveEffectiveCapability(CAP_PERFMON);
  if (bpf && perfmon) return Status::OK();
  std::string missing = !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON";
  return Status::PermissionDenied("needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN, root) to load its eBPF program; " +
                                  missing + " not held");
}

}  // namespace bottleneckd
