#include "daemon/tick_stages.h"

#include <algorithm>
#include <cstdio>

namespace bottleneckd {
namespace {

std::string Seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", s);
  return b;
}

}  // namespace

void TickStages::Start() {
  stages_.clear();
  slowest_collector_.clear();
  slowest_collector_seconds_ = -1;
  at_ = Clock::now();
}

void TickStages::Mark(const char* name) {
  Clock::time_point now = Clock::now();
  Add(name, std::chrono::duration<double>(now - at_).count());
  at_ = now;
}

void TickStages::Add(const char* name, double seconds) { stages_.emplace_back(name, seconds); }

void TickStages::Collector(const std::string& name, double seconds) {
  if (seconds > slowest_collector_seconds_) slowest_collector_ = name, slowest_collector_seconds_ = seconds;
}

double TickStages::total_seconds() const {
  double t = 0;
  for (const auto& [name, s] : stages_) t += s;
  return t;
}

std::string TickStages::Slowest() const {
  std::vector<std::pair<const char*, double>> order = stages_;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < order.size() && i < 3; ++i) {
    out += (i ? ", " : "") + std::string(order[i].first) + " " + Seconds(order[i].second);
    if (std::string(order[i].first) == "collectors" && slowest_collector_seconds_ >= 0)
      out += " (slowest: " + slowest_collector_ + " " + Seconds(slowest_collector_seconds_) + ")";
  }
  return out;
}

}  // namespace bottleneckd
