// What the eBPF sources (irqtime, offcpu) share around libbpf: its one
// process-wide print callback, a load's failure as one Status that quotes the
// verifier's reason, and the capability check they make first.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace bottleneckd {

// Routes libbpf's lines to the debug log (or to a CaptureLibbpf while one is
// alive). Idempotent; every eBPF source calls it before loading.
void InstallLibbpfPrint();

// Keeps libbpf's lines in *sink for the lifetime of the object (the verifier's
// log among them), so a failed load can say why. One at a time.
class CaptureLibbpf {
 public:
  explicit CaptureLibbpf(std::string* sink);
  ~CaptureLibbpf();
  CaptureLibbpf(const CaptureLibbpf&) = delete;
  CaptureLibbpf& operator=(const CaptureLibbpf&) = delete;
};

// The line of libbpf's output that says why a load failed: the verifier log's
// last line when there is one ("R1 invalid mem access 'scalar'"), else the
// last line that is not log framing.
std::string WhyFromLibbpf(const std::string& text);

// A load or attach failure as one Status: what failed, errno in words,
// libbpf's own reason. PermissionDenied (EPERM: lockdown, seccomp, a user
// namespace), NotFound (ENOENT, ESRCH: `missing` says which tracepoints the
// program needs), NotSupported (EACCES, EINVAL, E2BIG: the verifier refused
// it), IOError otherwise.
Status BpfLoadError(std::string_view what, int err, const std::string& libbpf_text, std::string_view missing);

// OK with CAP_SYS_ADMIN, or with both CAP_BPF and CAP_PERFMON, in the
// effective set; PermissionDenied naming what is missing otherwise.
Status CheckBpfPrivileges();

}  // namespace bottleneckd
