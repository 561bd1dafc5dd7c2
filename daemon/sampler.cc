#include "daemon/sampler.h"

#include "base/clock.h"
#include "base/log.h"
#include "daemon/config.h"

namespace bottleneckd {
Sampler::Sampler(const HostFs* fs, const CollectorsConfig& config) : fs_(fs) {
  for (const CollectorInfo& info : CollectorRegistry()) {
    if (!CollectorEnabled(config, info.name, info.default_enabled)) continue;
    entries_.push_back({info.make(config), &info, -1, 0});
  }
}

void Sampler::LogReadIssues(const std::string& collector, const std::vector<ReadIssue>& issues) {
  for (const ReadIssue& i : issues) {
    if (logged_files_.count(i.file)) continue;
    if (logged_files_.size() == kMaxLoggedFiles) {
      logged_files_.insert(i.file);
      Log(LogLevel::kWarn, "more unreadable kernel files; no longer logged one by one",
          {{"collector", collector}, {"logged", std::to_string(kMaxLoggedFiles)}});
      continue;
    }
    if (logged_files_.size() > kMaxLoggedFiles) continue;
    logged_files_.insert(i.file);
    Log(LogLevel::kWarn, "kernel file left out: its values are not exported",
        {{"collector", collector}, {"file", i.file}, {"err", i.reason}});
  }
}

std::vector<std::string> Sampler::CollectorNames() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) names.emplace_back(e.collector->name());
  return names;
}

std::vector<std::string> Sampler::BackoffCollectorNames() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_)
    if (e.info->carry) names.emplace_back(e.collector->name());
  return names;
}

namespace {

const CollectorResult* FindResult(const Sample& s, std::string_view name) {
  for (const CollectorResult& r : s.results)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

void Sampler::Take(Sample* out, const Sample* prev) {
  *out = Sample();
  out->mono_ns = MonotonicNanos();
  out->wall_ns = WallNanos();
  const bool due = backoff_ == 1 || ticks_ % static_cast<uint64_t>(backoff_) == 0;
  ++ticks_;
  for (Entry& e : entries_) {
    const CollectorResult* last = prev && !due && e.info->carry ? FindResult(*prev, e.collector->name()) : nullptr;
    if (last) {  // skipped this tick: its last reading stands, with its own time
      e.info->carry(*prev, out);
      CollectorResult r = *last;
      r.duration_seconds = 0;
      r.read_errors = 0;
      r.carried = true;
      if (!last->carried) r.read_mono_ns = prev->mono_ns;
      out->results.push_back(std::move(r));
      continue;
    }
    int64_t t0 = MonotonicNanos();
    Status s = e.collector->Collect(*fs_, out);
    CollectorResult r;
    r.name = std::string(e.collector->name());
    r.duration_seconds = static_cast<double>(MonotonicNanos() - t0) / 1e9;
    // NotSupported: this kernel lacks the files; the collector has nothing to
    // say, which is not a failure (node_exporter logs it at debug).
    r.success = s.ok() || s.IsNotSupported();
    if (!s.ok()) r.error = s.ToString();
    std::vector<ReadIssue>* issues = e.collector->read_issues();
    r.read_errors = issues->size();
    e.read_errors_total += issues->size();
    r.read_errors_total = e.read_errors_total;
    LogReadIssues(r.name, *issues);
    issues->clear();
    int state = r.success ? 1 : 0;
    if (state != e.last_state) {
      if (!r.success) {
        Log(LogLevel::kError, "collector failed", {{"collector", r.name}, {"err", r.error}});
      } else if (s.IsNotSupported()) {
        Log(LogLevel::kDebug, "collector not supported here", {{"collector", r.name}, {"err", r.error}});
      } else if (e.last_state == 0) {
        Log(LogLevel::kInfo, "collector recovered", {{"collector", r.name}});
      }
      e.last_state = state;
    }
    out->results.push_back(std::move(r));
  }
}

}  // namespace bottleneckd
