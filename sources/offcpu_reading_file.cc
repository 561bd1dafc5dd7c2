// The recording's offcpu file (docs/recording-format.md, "offcpu"): the
// target threads' waits at one tick, each wait site named as the recorder's
// kernel named it (a replay on another host needs no kallsyms). Written by
// OffCpuFileText, read back by ParseOffCpuFile, in the line form of
// sources/reading_file.h:
//   reading MONO_NS GENERATION DROPPED
//   tids TID...
//   site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE STACK
//   waker TID PID NAME
// Format 1 (before wakers were kept) has no WAKER column and no waker line:
// its sites read as no waker seen. Formats 1 and 2 (before the whole stack
// was kept) have no STACK column: their sites' stacks read as not walked.
#include "sources/offcpu.h"
#include "sources/reading_file.h"

namespace bottleneckd {
namespace {

constexpr int kOffCpuFileFormat = 3;
constexpr int kMaxTid = 1 << 30;

}  // namespace

std::string OffCpuFileText(const OffCpuReading& r) {
  ReadingFileWriter w(kOffCpuFileFormat);
  w.Line("reading").I(r.mono_ns).U(r.generation).U(r.dropped);
  w.Line("tids");
  for (int t : r.tids) w.I(t);
  for (const OffCpuSite& s : r.sites)
    w.Line("site")
        .I(s.tid)
        .B(s.involuntary)
        .B(s.sampled)
        .U(s.ns)
        .U(s.count)
        .I(s.waker)
        .B(s.waker_softirq)
        .S(s.where)
        .S(s.stack);
  for (const OffCpuWaker& k : r.wakers) w.Line("waker").I(k.tid).I(k.pid).S(k.name);
  return w.Take();
}

Status ParseOffCpuFile(std::string_view text, OffCpuReading* out) {
  ReadingFileReader r(text, "offcpu");
  int format = 0;
  BN_RETURN_IF_ERROR(r.Format(kOffCpuFileFormat, &format));
  OffCpuReading o;
  bool reading = false, tids = false;
  while (r.Next()) {
    if (r.key() == "reading") {
      if (reading) return r.Bad("reading given twice");
      reading = true;
      if (!r.I(&o.mono_ns) || o.mono_ns < 0 || !r.U(&o.generation) || !r.U(&o.dropped) || !r.AtEnd())
        return r.Bad("expected 'reading MONO_NS GENERATION DROPPED' with whole numbers");
    } else if (r.key() == "tids") {
      if (tids) return r.Bad("tids given twice");
      tids = true;
      while (!r.AtEnd()) {
        int t = 0;
        if (!r.Int(&t, 1, kMaxTid)) return r.Bad("a thread id is a whole number from 1");
        o.tids.push_back(t);
      }
    } else if (r.key() == "site") {
      OffCpuSite s;
      if (!r.Int(&s.tid, 1, kMaxTid) || !r.B(&s.involuntary) || !r.B(&s.sampled) || !r.U(&s.ns) || !r.U(&s.count) ||
          (format >= 2 && (!r.Int(&s.waker, kWakerNotYet, kMaxTid) || !r.B(&s.waker_softirq))) || !r.S(&s.where) ||
          (format >= 3 && !r.S(&s.stack)) || !r.AtEnd())
        return r.Bad(format >= 3 ? "expected 'site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE STACK' (WAKER "
                                   "from -3)"
                     : format == 2
                         ? "expected 'site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE' (WAKER from -3)"
                         : "expected 'site TID INVOLUNTARY SAMPLED NS COUNT WHERE'");
      if (s.waker == kWakerNotYet && s.count != 0) return r.Bad("a period under way (WAKER -3) has COUNT 0");
      o.sites.push_back(std::move(s));
    } else if (r.key() == "waker" && format >= 2) {
      OffCpuWaker k;
      if (!r.Int(&k.tid, 1, kMaxTid) || !r.Int(&k.pid, 0, kMaxTid) || !r.S(&k.name) || !r.AtEnd())
        return r.Bad("expected 'waker TID PID NAME'");
      if (!o.wakers.empty() && o.wakers.back().tid >= k.tid) return r.Bad("waker lines go by increasing TID");
      o.wakers.push_back(std::move(k));
    } else {
      return r.Bad("unknown key '" + std::string(r.key().substr(0, 40)) + "' (expected reading, tids, site or waker)");
    }
  }
  if (!reading) return Status::Corruption("offcpu: no 'reading' line");
  *out = std::move(o);
  return Status::OK();
}

}  // namespace bottleneckd
