#include "analysis/verdict.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/rules.h"
#include "analysis/saturated_cpu.h"
#include "analysis/wait_class.h"
#include "base/parse_util.h"

namespace bottleneckd {
namespace {

size_t Index(Bound b) { return static_cast<size_t>(b); }

Verdict ClassifyRules(const Signals& s, const VerdictThresholds& t) {
  std::span<const Rule> rules = VerdictRules();
  std::vector<RuleResult> results;
  results.reserve(rules.size());
  Verdict v;
  v.losing = s.ladder.first_losing != Rung::kNone;
  for (const Rule& rule : rules) {
    results.push_back(rule.score(s, t));
    v.scores[Index(rule.bound)] = std::clamp(results.back().score, 0.0, 1.0);
  }
  // Winner and runner-up by score; the table order breaks ties.
  std::vector<size_t> order(rules.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return v.scores[Index(rules[a].bound)] > v.scores[Index(rules[b].bound)];
  });
  const size_t win = order[0];
  const double best = v.scores[Index(rules[win].bound)];
  const double second = order.size() > 1 ? v.scores[Index(rules[order[1]].bound)] : 0.0;

  bool weak = best < t.min_score;
  bool close = best - second < t.margin;
  // The label of rule `at`, its evidence, and what the other resources
  // showed, so a reader sees why they are not it.
  auto publish = [&](size_t at, bool own_evidence) {
    v.label = rules[at].bound;
    v.resource = results[at].resource;
    v.resource_cpu = results[at].cpu;
    if (own_evidence) v.evidence.insert(v.evidence.end(), results[at].evidence.begin(), results[at].evidence.end());
    for (size_t i : order) {
      if (i == at || rules[i].bound == Bound::kNone || results[i].evidence.empty()) continue;
      v.evidence.push_back("not " + std::string(rules[i].name) + " (score " +
                           FormatScore(v.scores[Index(rules[i].bound)]) + "): " + results[i].evidence.front());
    }
  };
  if (!weak && !close) {
    v.confidence = std::clamp(best - second, 0.0, 1.0);
    publish(win, true);
    return v;
  }
  // A saturated CPU on the packet path is named even where the scores are
  // close or weak (saturated_cpu.h); its own budget picks the label, and the
  // confidence is how clearly one part of it beat the other.
  // Not where the bus scored a verdict too: two resources full together (the
  // simulator's `ambiguous`: relieving either alone gains nothing) stay
  // undetermined, the saturated CPU said in the reasons.
  std::optional<SaturatedCpuCall> call = SaturatedPathCpu(s, t);
  if (call && !call->full_bus.empty()) {
    v.reasons.push_back("a saturated CPU beside a full bus (" + call->full_bus + "): " + call->sentence);
  } else if (call) {
    size_t at = 0;
    while (rules[at].bound != call->label) ++at;
    v.evidence.push_back(call->sentence);
    v.evidence.push_back("the rules alone: " + std::string(rules[win].name) + " " + FormatScore(best) + ", " +
                         rules[order[1]].name + " " + FormatScore(second) +
                         (close ? " within the margin " + FormatScore(t.margin)
                                : ", under the " + FormatScore(t.min_score) + " a verdict needs"));
    // The rule's own sentences where it looked at this CPU; where its best
    // was another CPU, this one is named and the sentence above stands.
    bool same_cpu = results[at].cpu == call->cpu || results[at].resource == CpuName(call->cpu);
    publish(at, same_cpu);
    if (!same_cpu) v.resource = CpuName(call->cpu);
    v.resource_cpu = call->cpu;
    double total = call->tasks + call->handlers;
    v.confidence = total > 0 ? std::clamp(std::abs(call->tasks - call->handlers) / total, 0.0, 1.0) : 0.0;
    return v;
  }

  v.label = Bound::kUndetermined;
  v.confidence = 0;
  if (weak && best <= 0) {
    v.reasons.push_back("weak evidence: no rule found any (a verdict needs " + FormatScore(t.min_score) + ")");
  } else if (weak) {
    v.reasons.push_back("weak evidence: the best rule, " + std::string(rules[win].name) + ", scores " +
                        FormatScore(best) + " (a verdict needs " + FormatScore(t.min_score) + ")");
  }
  if (close && best > 0) {
    v.reasons.push_back("conflicting evidence: " + std::string(rules[win].name) + " (" + FormatScore(best) + ") and " +
                        rules[order[1]].name + " (" + FormatScore(second) + ") within the margin " +
                        FormatScore(t.margin));
  }
  // Every rule's evidence (best first) shows what was seen; their caveats
  // say what was missing.
  for (size_t i : order) {
    for (const std::string& e : results[i].evidence) v.evidence.push_back(std::string(rules[i].name) + ": " + e);
    for (const std::string& c : results[i].caveats) v.reasons.push_back(c);
  }
  return v;
}

}  // namespace

Verdict Classify(const Signals& s, const VerdictThresholds& t) {
  Verdict v = ClassifyRules(s, t);
  if (v.label == Bound::kWait)
    for (const ThreadSignal& th : s.threads)
      if (th.state && th.thread == ResourceThread(v.resource)) {
        v.wait_class = LargestOwnClass(*th.state);
        break;
      }
  // Whatever the label: load that went where the verdict does not look.
  if (std::string off = OffPathSentence(s); !off.empty()) v.evidence.push_back(std::move(off));
  for (std::string& lo : LoopbackSentences(s)) v.evidence.push_back(std::move(lo));
  return v;
}

const Verdict& VerdictTracker::Update(const Verdict& raw) {
  const int needed = std::max(1, t_.hysteresis_windows);
  if (raw.label == current_.label && raw.resource == current_.resource) {
    current_ = raw;
    pending_count_ = 0;
    return current_;
  }
  // From undetermined, a confident verdict is published at once; from none,
  // a confident bound in a window that loses packets: a load step shows
  // within a window, and a bound is not held back behind `none` while packets
  // are lost. A bound that loses nothing (one busy second of a log
  // compressor) must hold `needed` windows like any other change.
  bool bound = IsLimit(raw.label);
  bool at_once = current_.label == Bound::kUndetermined ? raw.label != Bound::kUndetermined
                                                        : current_.label == Bound::kNone && bound && raw.losing;
  if (at_once && raw.confidence >= t_.switch_confidence) {
    current_ = raw;
    pending_count_ = 0;
    return current_;
  }
  // One saturation, one name (docs/verdict-rules.md section 9): the same
  // label naming the thread that ran on the CPU named now is that CPU's
  // saturation named better, not another answer: published at once. (The
  // other way, from the thread to its CPU, holds like any change: lab.irqtime's
  // CPU-bound run read cpu1 in its first window, thread udpecho after it, and
  // with the change held three windows the run's 6 windows tied 3 to 3 and
  // said cpu1.)
  int named_cpu = -1;
  if (raw.label == current_.label && !ResourceThread(raw.resource).empty() &&
      ResourceCpu(current_.resource, &named_cpu) && raw.resource_cpu == named_cpu) {
    current_ = raw;
    pending_count_ = 0;
    return current_;
  }
  // Anything else (another label, or the same label naming another resource)
  // must hold `needed` windows in a row.
  if (pending_count_ > 0 && raw.label == pending_ && raw.resource == pending_resource_) {
    ++pending_count_;
  } else {
    pending_ = raw.label;
    pending_resource_ = raw.resource;
    pending_count_ = 1;
  }
  if (pending_count_ >= needed) {
    current_ = raw;
    pending_count_ = 0;
  } else if (raw.label == current_.label) {
    // The label holds while its resource is contested: its confidence and
    // scores follow the window, the resource and evidence stay.
    current_.confidence = raw.confidence;
    current_.scores = raw.scores;
  }
  return current_;
}

bool ResourceCpu(std::string_view resource, int* cpu) {
  int64_t n = 0;
  if (resource.substr(0, 3) != "cpu" || !ParseI64(resource.substr(3), &n) || n < 0 || n > 1 << 20) return false;
  *cpu = static_cast<int>(n);
  return true;
}

std::string_view ResourceThread(std::string_view resource) {
  constexpr std::string_view kThread = "thread ";
  return resource.substr(0, kThread.size()) == kThread ? resource.substr(kThread.size()) : std::string_view();
}

}  // namespace bottleneckd
