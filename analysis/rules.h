// Verdict rules, private to analysis/ (Classify in verdict.cc reads the
// table): one function per label, each scoring one window's Signals in [0, 1]
// and saying why in sentences with the numbers. docs/verdict-rules.md
// describes every rule, threshold and factor.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/signals.h"
#include "analysis/verdict.h"

namespace bottleneckd {

struct RuleResult {
  double score = 0;                   // [0, 1]
  std::string resource;               // what the label would name ("cpu1"); "" for none
  std::vector<std::string> evidence;  // what the rule saw, with numbers, strongest first
  std::vector<std::string> caveats;   // what it lacked: the reasons when the verdict is undetermined
};

using ScoreFn = RuleResult (*)(const Signals& s, const VerdictThresholds& t);

struct Rule {
  Bound bound;
  const char* name;
  ScoreFn score;
};

// The rule table: cpu, interrupt, bus, none (undetermined is what is left
// when none of them wins clearly).
std::span<const Rule> VerdictRules();

// Number formatting shared by the rules: 0.81 -> "81.0 %", 122.4 -> "122",
// 31200 -> "31.2 k", 2.25 -> "2.2" (plain printf rounding).
std::string FormatPercent(double ratio);
std::string FormatRate(double per_second);
std::string FormatScore(double score);  // "0.93"

}  // namespace bottleneckd
