#include "runs/run_tracker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/log.h"

namespace bottleneckd {

RunTracker::RunTracker(std::unique_ptr<RunStore> store, const RunTrackerOptions& o) : store_(std::move(store)), o_(o) {}

RunTracker::~RunTracker() = default;

std::string RunTracker::store_path() const {
  MutexLock l(&mu_);
  return store_ ? store_->path() : "";
}

bool RunTracker::active() const {
  MutexLock l(&mu_);
  return !active_.empty();
}

uint64_t RunTracker::starts() const {
  MutexLock l(&mu_);
  return starts_;
}

size_t RunTracker::unsaved() const {
  MutexLock l(&mu_);
  return unsaved_.size();
}

std::vector<RunReport> RunTracker::Active() const {
  MutexLock l(&mu_);
  std::vector<RunReport> out;
  for (const auto& [name, live] : active_) {
    RunReport r = SummariseSpan(live, 0, live.points.size());
    r.end = live.points.empty() ? r.start : live.points.back().t;
    r.flows = live.flows.Top();
    out.push_back(std::move(r));
  }
  return out;
}

Status RunTracker::Follow(const std::string& name, int pid) {
  MutexLock l(&mu_);
  auto it = active_.find(name);
  if (it == active_.end()) return Status::NotFound("no active run named '" + name + "'");
  std::vector<int>& pids = it->second.pids;
  if (std::find(pids.begin(), pids.end(), pid) != pids.end()) return Status::OK();
  if (pids.size() >= kMaxFollowedPids)
    return Status::InvalidArgument("run '" + name + "' follows " + std::to_string(pids.size()) +
                                   " processes already, the most a run follows");
  pids.push_back(pid);
  Log(LogLevel::kInfo, "run follows a process", {{"name", name}, {"pid", std::to_string(pid)}});
  return Status::OK();
}

std::vector<int> RunTracker::FollowedPids() const {
  MutexLock l(&mu_);
  std::vector<int> out;
  for (const auto& [name, live] : active_) out.insert(out.end(), live.pids.begin(), live.pids.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> RunTracker::ActiveNames() const {
  MutexLock l(&mu_);
  std::vector<std::string> out;
  out.reserve(active_.size());
  for (const auto& entry : active_) out.push_back(entry.first);
  return out;
}

void RunTracker::StoreResult(const char* what, const Status& s) {
  if (s.ok()) {
    if (store_failing_) Log(LogLevel::kInfo, "run store writes again", {{"path", store_->path()}});
    store_failing_ = false;
    return;
  }
  // Said once per failing stretch: a full disk fails every window.
  if (!store_failing_)
    Log(LogLevel::kError, "run store write failed; runs are kept in memory and retried",
        {{"what", what}, {"err", s.message()}});
  store_failing_ = true;
}

Status RunTracker::Start(const std::string& name, const std::string& source, const std::string& command, double now) {
  MutexLock l(&mu_);
  if (active_.count(name)) return Status::InvalidArgument("a run named '" + name + "' is already active");
  if (active_.size() >= o_.max_active)
    return Status::InvalidArgument("too many active runs (" + std::to_string(o_.max_active) + "); stop one first");
  ++starts_;
  Live live;
  live.segments = SegmentTracker(o_.segment);
  live.run.name = name;
  live.run.source = source;
  live.run.command = command;
  live.run.state = "active";
  live.run.start = live.run.end = now;
  if (store_) StoreResult("begin run", store_->BeginRun(&live.run));
  Log(LogLevel::kInfo, "run started", {{"name", name}, {"source", source}, {"id", std::to_string(live.run.id)}});
  active_.emplace(name, std::move(live));
  return Status::OK();
}

Status RunTracker::Discard(const std::string& name) {
  MutexLock l(&mu_);
  auto it = active_.find(name);
  if (it == active_.end()) return Status::NotFound("no active run named '" + name + "'");
  const int64_t id = it->second.run.id;
  active_.erase(it);
  if (store_ && id > 0) StoreResult("discard run", store_->DeleteRun(id));
  Log(LogLevel::kInfo, "run discarded: its command did not start", {{"name", name}, {"id", std::to_string(id)}});
  return Status::OK();
}

RunReport RunTracker::SummariseSpan(const Live& l, size_t first, size_t last) const {
  RunReport r = l.run;
  size_t n = last > first ? last - first : 0;
  size_t from = first + SettleWindows(n);
  std::vector<TimelinePoint> settled(l.points.begin() + static_cast<std::ptrdiff_t>(from),
                                     l.points.begin() + static_cast<std::ptrdiff_t>(last));
  VerdictEvidence evidence;
  for (size_t i = from; i < last; ++i)
    evidence[{static_cast<int>(l.verdicts[i].label), l.verdicts[i].resource}] = l.verdicts[i];
  Summarise(settled, &evidence, &r, o_.loss);
  if (settled.empty()) {
    r.verdict = Verdict();
    r.verdict.reasons.push_back("no complete window inside the run: it was shorter than the sampling interval");
  }
  return r;
}

void RunTracker::EndSegment(Live* l, const Segment& s) {
  RunReport seg = SummariseSpan(*l, s.first, s.last + 1);
  ++l->segment_count;
  char name[64];
  std::snprintf(name, sizeof name, " step %zu (%.0f pps)", l->segment_count, s.level);
  seg.name = l->run.name + name;
  seg.source = "segment";
  seg.state = "finished";
  seg.command.clear();
  seg.exit_code.reset();
  seg.id = 0;
  // The segment starts where its first window started.
  double interval = l->points.size() >= 2 ? l->points[1].t - l->points[0].t : 1;
  seg.start = l->points[s.first].t - interval;
  seg.end = l->points[s.last].t;
  l->finished_segments.push_back(std::move(seg));
}

void RunTracker::AppendPending(Live* l) {
  if (!store_ || l->run.id == 0) return;
  while (l->stored_points < l->points.size()) {
    Status s = store_->AppendPoint(l->run.id, l->points[l->stored_points]);
    StoreResult("append point", s);
    if (!s.ok()) return;
    ++l->stored_points;
  }
}

void RunTracker::OnWindow(const TimelinePoint& p, const Verdict& v, const std::vector<CaptureWindow>& captures,
                          const ProfileReading* profile, const FoldedProfile* offcpu) {
  MutexLock l(&mu_);
  RetryUnsaved();
  for (auto& [name, live] : active_) {
    if (p.t <= live.run.start) continue;  // the window ended before the run began
    live.points.push_back(p);
    live.verdicts.push_back(v);
    live.flows.Add(captures);
    if (profile) AddReading(*profile, &live.profile), ++live.profile_readings;
    if (offcpu) AddProfile(*offcpu, &live.offcpu), ++live.offcpu_readings;
    AppendPending(&live);
    if (o_.segments)
      if (auto s = live.segments.Add(p.offered_packets_per_second)) EndSegment(&live, *s);
  }
  if (o_.window_seconds <= 0) return;
  if (!window_open_) {
    window_ = Live();
    window_.run.name = "window";
    window_.run.source = "window";
    window_.run.state = "finished";
    window_.run.start = p.t - (p.t - std::floor(p.t / o_.window_seconds) * o_.window_seconds);
    window_open_ = true;
  }
  window_.points.push_back(p);
  window_.verdicts.push_back(v);
  window_.flows.Add(captures);
  if (profile) AddReading(*profile, &window_.profile), ++window_.profile_readings;
  if (offcpu) AddProfile(*offcpu, &window_.offcpu), ++window_.offcpu_readings;
  if (p.t >= window_.run.start + o_.window_seconds - 1e-6) {
    // The host's windows carry hysteresis already: no settling.
    RunReport r = window_.run;
    VerdictEvidence evidence;
    for (const Verdict& w : window_.verdicts) evidence[{static_cast<int>(w.label), w.resource}] = w;
    Summarise(window_.points, &evidence, &r, o_.loss);
    r.end = p.t;
    r.flows = window_.flows.Top();
    r.profile = std::move(window_.profile);
    r.profile_readings = window_.profile_readings;
    r.offcpu = std::move(window_.offcpu);
    r.offcpu_readings = window_.offcpu_readings;
    window_open_ = false;
    Save(Pending{std::move(r), {}, 0, false, {}, 0});
    if (store_ && p.t - last_prune_ > 3600) {
      last_prune_ = p.t;
      size_t deleted = 0;
      Status s = store_->PruneWindows(p.t - o_.keep_windows_seconds, &deleted);
      if (!s.ok()) Log(LogLevel::kWarn, "pruning old window runs failed", {{"err", s.message()}});
    }
  }
}

bool RunTracker::Store(Pending* p) {
  if (!store_) return true;
  Status s;
  if (!p->finished) {
    if (p->run.id != 0) {
      while (p->stored_points < p->timeline.size()) {
        s = store_->AppendPoint(p->run.id, p->timeline[p->stored_points]);
        if (!s.ok()) break;
        ++p->stored_points;
      }
    }
    if (s.ok()) s = store_->FinishRun(&p->run, p->run.id != 0 ? std::vector<TimelinePoint>{} : p->timeline);
    p->finished = s.ok();
  }
  // A segment's timeline is its parent's: only its summary is stored.
  while (s.ok() && p->stored_children < p->children.size()) {
    RunReport& child = p->children[p->stored_children];
    child.parent_id = p->run.id;
    s = store_->FinishRun(&child, {});
    if (s.ok()) ++p->stored_children;
  }
  StoreResult("finish run", s);
  return s.ok();
}

void RunTracker::Save(Pending p) {
  if (!Store(&p)) unsaved_.push_back(std::move(p));
}

void RunTracker::RetryUnsaved() {
  if (unsaved_.empty()) return;
  std::vector<Pending> still;
  for (Pending& p : unsaved_)
    if (!Store(&p)) still.push_back(std::move(p));
  unsaved_ = std::move(still);
}

Status RunTracker::Stop(const std::string& name, std::optional<int> exit_code, double now, RunReport* out,
                        std::vector<RunReport>* segments) {
  MutexLock l(&mu_);
  return StopLocked(name, exit_code, now, "finished", out, segments);
}

Status RunTracker::StopLocked(const std::string& name, std::optional<int> exit_code, double now, const char* state,
                              RunReport* out, std::vector<RunReport>* segments) {
  auto it = active_.find(name);
  if (it == active_.end()) return Status::NotFound("no active run named '" + name + "'");
  Live live = std::move(it->second);
  active_.erase(it);
  if (o_.segments)
    if (auto s = live.segments.Flush()) EndSegment(&live, *s);
  RunReport r = SummariseSpan(live, 0, live.points.size());
  r.end = now;
  r.state = state;
  r.flows = live.flows.Top();
  r.profile = std::move(live.profile);
  r.profile_readings = live.profile_readings;
  r.offcpu = std::move(live.offcpu);
  r.offcpu_readings = live.offcpu_readings;
  r.exit_code = exit_code;
  Pending p{r, live.points, live.stored_points, false, live.finished_segments, 0};
  bool stored = Store(&p);
  r.id = p.run.id;
  if (segments) *segments = p.children;  // with their ids when stored
  if (!stored) unsaved_.push_back(std::move(p));
  Log(LogLevel::kInfo, "run finished",
      {{"name", name},
       {"state", state},
       {"verdict", BoundName(r.verdict.label)},
       {"resource", r.verdict.resource},
       {"windows", std::to_string(r.windows)},
       {"segments", std::to_string(live.finished_segments.size())},
       {"stored", stored ? "true" : "false"}});
  *out = r;
  return Status::OK();
}

std::vector<std::string> RunTracker::Close(double now) {
  MutexLock l(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, live] : active_) names.push_back(name);
  RunReport r;
  // Runs the daemon's exit cuts short are interrupted, with what they had.
  // Each name is active (just listed under the lock): StopLocked cannot fail.
  for (const std::string& n : names) StopLocked(n, std::nullopt, now, "interrupted", &r, nullptr).IgnoreError();
  RetryUnsaved();
  std::vector<std::string> lost;
  std::string joined;
  for (const Pending& p : unsaved_) {
    char start[32];
    std::snprintf(start, sizeof(start), "%.3f", p.run.start);
    lost.push_back("'" + p.run.name + "' (" + p.run.state + ", " + std::to_string(p.run.windows) +
                   " windows, started " + start + ")");
    joined += (joined.empty() ? "" : "; ") + lost.back();
  }
  if (!lost.empty())
    Log(LogLevel::kError, "runs could not be stored before exit and are lost",
        {{"count", std::to_string(lost.size())}, {"runs", joined}, {"store", store_ ? store_->path() : ""}});
  return lost;
}

}  // namespace bottleneckd
