// The recording's profile file (docs/recording-format.md, "profile"): the
// stacks sampled since the previous tick, their frames named at record time
// by the recorder's symbolizer (a replay on another host reads no binary and
// no kallsyms). Written by ProfileFileText, read back by ParseProfileFile,
// in the line form of sources/reading_file.h:
//   reading MONO_NS SINCE_NS GENERATION FREQUENCY_HZ DROPPED STACK_LOST
//   cpu CPU SAMPLES IDLE        (since the previous tick)
//   total CPU SAMPLES IDLE      (since the program loaded)
//   stack PID TID CPU SAMPLES COMM FRAME...
#include "sources/profile.h"
#include "sources/reading_file.h"

namespace bottleneckd {
namespace {

constexpr int kProfileFileFormat = 1;
constexpr int kMaxId = 1 << 30;

bool ReadCpu(ReadingFileReader* r, ProfileCpu* c) {
  return r->Int(&c->cpu, 0, kMaxId) && r->U(&c->samples) && r->U(&c->idle) && c->idle <= c->samples && r->AtEnd();
}

}  // namespace

std::string ProfileFileText(const ProfileReading& p) {
  ReadingFileWriter w(kProfileFileFormat);
  w.Line("reading").I(p.mono_ns).I(p.since_ns).U(p.generation).I(p.frequency_hz).U(p.dropped).U(p.stack_lost);
  for (const ProfileCpu& c : p.cpus) w.Line("cpu").I(c.cpu).U(c.samples).U(c.idle);
  for (const ProfileCpu& c : p.cpu_totals) w.Line("total").I(c.cpu).U(c.samples).U(c.idle);
  for (const ProfileStack& s : p.stacks) {
    w.Line("stack").I(s.pid).I(s.tid).I(s.cpu).U(s.samples).S(s.comm);
    for (const std::string& f : s.frames) w.S(f);
  }
  return w.Take();
}

Status ParseProfileFile(std::string_view text, ProfileReading* out) {
  ReadingFileReader r(text, "profile");
  int format = 0;
  BN_RETURN_IF_ERROR(r.Format(kProfileFileFormat, &format));
  ProfileReading p;
  bool reading = false;
  while (r.Next()) {
    if (r.key() == "reading") {
      if (reading) return r.Bad("reading given twice");
      reading = true;
      if (!r.I(&p.mono_ns) || p.mono_ns < 0 || !r.I(&p.since_ns) || p.since_ns < 0 || !r.U(&p.generation) ||
          !r.Int(&p.frequency_hz, 0, kProfileMaxFrequencyHz) || !r.U(&p.dropped) || !r.U(&p.stack_lost) || !r.AtEnd())
        return r.Bad("expected 'reading MONO_NS SINCE_NS GENERATION FREQUENCY_HZ DROPPED STACK_LOST'");
    } else if (r.key() == "cpu" || r.key() == "total") {
      ProfileCpu c;
      if (!ReadCpu(&r, &c)) return r.Bad("expected '" + std::string(r.key()) + " CPU SAMPLES IDLE', IDLE <= SAMPLES");
      (r.key() == "cpu" ? p.cpus : p.cpu_totals).push_back(c);
    } else if (r.key() == "stack") {
      ProfileStack s;
      if (!r.Int(&s.pid, 0, kMaxId) || !r.Int(&s.tid, 0, kMaxId) || !r.Int(&s.cpu, -1, kMaxId) || !r.U(&s.samples) ||
          !r.S(&s.comm))
        return r.Bad("expected 'stack PID TID CPU SAMPLES COMM FRAME...'");
      while (!r.AtEnd()) {
        std::string f;
        if (!r.S(&f)) return r.Bad("a frame has a bad %-escape");
        s.frames.push_back(std::move(f));
      }
      p.stacks.push_back(std::move(s));
    } else {
      return r.Bad("unknown key '" + std::string(r.key().substr(0, 40)) + "' (expected reading, cpu, total or stack)");
    }
  }
  if (!reading) return Status::Corruption("profile: no 'reading' line");
  *out = std::move(p);
  return Status::OK();
}

}  // namespace bottleneckd
