#include "sources/source_set.h"

#include "base/clock.h"
#include "sources/sample.h"
#include "sources/source_registry.h"

namespace bottleneckd {

SourceSet::SourceSet() : SourceSet(SourceRegistry()) {}

SourceSet::SourceSet(std::vector<const SourceEntry*> entries) {
  slots_.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) slots_[i].entry = entries[i];
}

SourceSet::~SourceSet() { StopAll(); }

void SourceSet::StopAll() {
  for (Slot& s : slots_)
    if (s.source) s.source->Stop();
}

void SourceSet::Sync(const SourceConfig& c) {
  for (Slot& s : slots_) SyncSlot(&s, c);
}

void SourceSet::SyncSlot(Slot* s, const SourceConfig& c) {
  const SourceEntry& e = *s->entry;
  const LoadMode mode = e.Wanted(c);
  if (mode == LoadMode::kOff) {
    if (s->source) {
      s->source->Stop();
      s->source.reset();
      Log(LogLevel::kInfo, std::string(e.name()) + " stopped");
    }
    s->tried = false;
    s->refusal = Status::OK();
    s->said.clear();
    s->failures.Reset();
    return;
  }
  const std::string key = e.OptionsKey(c);
  if (s->source && key == s->key) return;
  if (!s->source && s->tried && key == s->key && !e.RetryEachTick()) return;  // refused once and said so
  if (s->source) {
    if (Status r = e.CanRestart(); !r.ok()) {
      if (s->restart_refused != key)
        Log(LogLevel::kWarn, std::string(e.name()) + ": options changed", {{"err", r.ToString()}});
      s->restart_refused = key;
      return;
    }
    s->source->Stop();
    s->source.reset();
    s->said.clear();
  }
  s->key = key;
  s->tried = true;
  std::unique_ptr<Source> src = e.Make(c);
  if (Status st = src->Start(); !st.ok()) {
    s->refusal = mode == LoadMode::kOn ? st.WithContext(std::string(e.name()) + " (mode on)") : Status::OK();
    uint64_t held_back = 0;
    const bool say =
        !e.RetryEachTick() || s->failures.Admit(st.ToString(), static_cast<double>(MonotonicNanos()) / 1e9, &held_back);
    if (e.KeptWhenRefused()) e.SayStarted(*src, c);  // what it can say of itself: each part's reason
    if (say) e.SayRefused(st, mode, held_back);
    if (e.KeptWhenRefused()) s->source = std::move(src);
    return;
  }
  s->refusal = Status::OK();
  s->failures.Reset();
  e.SayStarted(*src, c);
  s->source = std::move(src);
}

void SourceSet::Read(Sample* sample) {
  for (Slot& s : slots_) {
    if (!s.source) continue;
    const int64_t t0 = MonotonicNanos();
    Status st = s.source->Read(sample);
    CollectorResult r;
    r.name = std::string(s.entry->name());
    r.success = st.ok();
    if (!st.ok()) r.error = st.message();
    r.duration_seconds = static_cast<double>(MonotonicNanos() - t0) / 1e9;
    sample->results.push_back(std::move(r));
    s.entry->SayChanges(*sample, &s.said);
  }
}

Source* SourceSet::Find(std::string_view name) const {
  for (const Slot& s : slots_)
    if (s.entry->name() == name) return s.source.get();
  return nullptr;
}

std::vector<const SourceEntry*> SourceSet::Running() const {
  std::vector<const SourceEntry*> out;
  for (const Slot& s : slots_)
    if (s.source) out.push_back(s.entry);
  return out;
}

Status SourceSet::fatal_error() const {
  for (const Slot& s : slots_)
    if (!s.refusal.ok()) return s.refusal;
  return Status::OK();
}

}  // namespace bottleneckd
