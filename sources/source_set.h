// SourceSet: the continuous sources of one process (the daemon, `bottleneckd
// record`), driven by their entries (sources/source_entry.h). Sync loads,
// rebuilds or unloads each entry's source to match the config, saying once
// what it did or why it could not; Read reads every running source into the
// tick's Sample, each read timed as its CollectorResult; the destructor stops
// them. One thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "sources/source_entry.h"

namespace bottleneckd {

struct Sample;

class SourceSet {
 public:
  // The registry's entries (sources/source_registry.h), or these (tests).
  SourceSet();
  explicit SourceSet(std::vector<const SourceEntry*> entries);
  ~SourceSet();
  SourceSet(const SourceSet&) = delete;
  SourceSet& operator=(const SourceSet&) = delete;

  // Each entry in turn: not wanted, stopped (said once); wanted and not
  // running, or running with other options, built and started (a refusal
  // said once per options key, or once and then hourly for RetryEachTick);
  // a running source the entry may not restart (CanRestart) is kept as is,
  // said once.
  void Sync(const SourceConfig& c);
  // Reads every running source into *sample, in entry order, each as a
  // CollectorResult named after it, and says what changed in its reading.
  void Read(Sample* sample);
  // Stops every source (the destructor does it too).
  void StopAll();

  // The running source of entry `name`; null when none runs.
  Source* Find(std::string_view name) const;
  // The entries whose source runs, in order.
  std::vector<const SourceEntry*> Running() const;
  // Why an entry wanted in mode on did not start (the first such); OK when
  // none.
  Status fatal_error() const;

 private:
  struct Slot {
    const SourceEntry* entry = nullptr;
    std::unique_ptr<Source> source;
    std::string key;     // the options key it was built (or refused) with
    bool tried = false;  // built or refused with `key`
    Status refusal;      // the last refusal in mode on
    RepeatLimiter failures{3600};
    std::string said;             // the entry's SayChanges state
    std::string restart_refused;  // the key a refused restart was said for
  };
  void SyncSlot(Slot* s, const SourceConfig& c);
  std::vector<Slot> slots_;
};

}  // namespace bottleneckd
