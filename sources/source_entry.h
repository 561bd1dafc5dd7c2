// SourceEntry: everything the daemon, `bottleneckd record` and `--replay`
// know about one continuous source (sources/source.h), in one place: when it
// is wanted, how it is built, whether a refusal is fatal, which options a
// reload compares, what it logs, and its recording codec (the file its
// reading of a tick is kept in). SourceSet (sources/source_set.h) drives the
// entries; SourceRegistry() (sources/source_registry.h) lists them. Adding a
// source is one Source class and one entry (docs/development.md, "Adding a
// continuous source"); the live/replay property test enumerates the
// registry, so an entry whose codec loses anything fails it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "collectors/collectors_config.h"
#include "collectors/host_fs.h"
#include "sources/capture.h"
#include "sources/irqtime.h"
#include "sources/profile.h"
#include "sources/soaker.h"
#include "sources/source.h"

namespace bottleneckd {

struct Sample;

// What the entries decide from: the parts of the config the sources read,
// and the host's state. Pointers are the caller's and valid for one call.
struct SourceConfig {
  bool live = false;                             // the roots are this host's /proc and /sys
  const HostFs* fs = nullptr;                    // the host's files (the soaker's CPUs and calibration key)
  const CollectorsConfig* collectors = nullptr;  // enabled and disabled; the threads collector's targets
  const CaptureOptions* capture = nullptr;       // collectors.pcap
  const SoakerOptions* soaker = nullptr;
  const IrqTimeOptions* irqtime = nullptr;
  const ProfileOptions* profile = nullptr;
  bool run_active = false;          // a run is active, or --soaker: the soaker in mode "runs" runs
  bool soaker_calibrating = false;  // the soaker's calibration is being measured: it starts after
  // An active run follows a process (RunTracker::Follow: the command
  // `bottleneckd run` started): the threads collector has a target beside
  // collectors.threads.targets.
  bool run_follows = false;
};

class SourceEntry {
 public:
  virtual ~SourceEntry() = default;
  // Its name everywhere: its CollectorResult, --collector.NAME, the file in
  // each recorded sample, recording.yaml's `sources`.
  virtual std::string_view name() const = 0;
  // Whether --collector.NAME and collectors.NAME.enabled switch it (the
  // soaker: no, runs and --soaker drive it), and what --help says.
  virtual bool switchable() const { return true; }
  virtual std::string_view default_state() const = 0;  // "off", "auto"
  virtual std::string_view help() const = 0;

  // Whether it runs under c: kOff, not wanted (unloaded); kAuto, wanted, and
  // a refusal is logged and the daemon goes on without it; kOn, a refusal
  // keeps the daemon from starting (SourceSet::fatal_error).
  virtual LoadMode Wanted(const SourceConfig& c) const = 0;
  // The options it is built with, as a key: a reload whose key differs
  // rebuilds it; the same key keeps it (and a refusal is not tried again).
  virtual std::string OptionsKey(const SourceConfig& c) const = 0;
  virtual std::unique_ptr<Source> Make(const SourceConfig& c) const = 0;
  // Whether a refused start is tried again every tick (the soaker, whose
  // cause may pass) instead of once per options key.
  virtual bool RetryEachTick() const { return false; }
  // Whether a source whose Start refused is kept and read all the same (the
  // capture: each interface's reading says why it is down, exported as
  // bottleneckd_capture_up 0) instead of dropped.
  virtual bool KeptWhenRefused() const { return false; }
  // Whether a running source may be replaced now; the reason when not (the
  // capture, once the capabilities to open one were dropped).
  virtual Status CanRestart() const { return Status::OK(); }

  // One log line when it started, with what it says of itself.
  virtual void SayStarted(Source& s, const SourceConfig& c) const;
  // What the host does without it: "interrupt time comes from /proc/stat".
  virtual std::string_view WithoutIt() const = 0;
  // One log line when it did not start (error in mode on, else info):
  // "NAME off: WITHOUT". held_back: refusals not logged since the last line
  // (RetryEachTick's, said once and then hourly).
  virtual void SayRefused(const Status& s, LoadMode mode, uint64_t held_back) const;
  // Logs what changed in its reading since the previous tick (the soaker's
  // caveat, an interface whose capture stopped); *said is kept per entry.
  virtual void SayChanges(const Sample&, std::string* /*said*/) const {}

  // The codec. Encode: the text of the sample's reading; false when the
  // sample has none. Decode: sets the sample's reading from text; a reading
  // without its own time takes the sample's. Errors name the line.
  virtual bool Encode(const Sample& s, std::string* text) const = 0;
  virtual Status Decode(std::string_view text, Sample* s) const = 0;
  // The largest file Decode reads.
  virtual size_t max_file_bytes() const { return 64u << 20; }
};

// The codec of an entry whose reading is a std::optional field of Sample:
// EncodeReading writes it with `text` (false when the sample has none);
// DecodeReading parses it with `parse` into the field, a reading without its
// own time taking the sample's (mono_ns).
template <typename Reading>
bool EncodeReading(const std::optional<Reading>& field, std::string (*text)(const Reading&), std::string* out) {
  if (!field) return false;
  *out = text(*field);
  return true;
}
template <typename Reading>
Status DecodeReading(std::string_view text, Status (*parse)(std::string_view, Reading*), int64_t mono_ns,
                     std::optional<Reading>* field) {
  Reading r;
  BN_RETURN_IF_ERROR(parse(text, &r));
  if constexpr (requires { r.mono_ns; }) {
    if (r.mono_ns == 0) r.mono_ns = mono_ns;
  }
  *field = std::move(r);
  return Status::OK();
}

// Each source's entry (its own file, sources/*_entry.cc).
const SourceEntry& CaptureEntry();
const SourceEntry& SoakerEntry();
const SourceEntry& IrqTimeEntry();
const SourceEntry& OffCpuEntry();
const SourceEntry& ProfileEntry();

// Shared by the eBPF sources' entries: mode on, or auto over the live host
// (over fixture or recorded trees the live kernel's readings would be mixed
// into theirs), and the source not disabled; kOff otherwise.
LoadMode LoadModeOnHost(LoadMode configured, bool enabled, bool live);

}  // namespace bottleneckd
