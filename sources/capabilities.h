// Capability checks shared by the sources that need privileges (capture:
// CAP_NET_RAW; irqtime: CAP_BPF and CAP_PERFMON). Raw capget, no libcap;
// capabilities are per thread on Linux, so these ask about the calling thread.
#pragma once

namespace bottleneckd {

// Whether `cap` (CAP_NET_RAW, CAP_BPF, ...) is in the calling thread's
// effective set; false when capget fails or the kernel predates the
// capability (its bit is never set).
bool HaveEffectiveCapability(int cap);

}  // namespace bottleneckd
