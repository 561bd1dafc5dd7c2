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
  int cpu = -1;                       // the CPU the resource is, or its thread ran on (cpu rule); else -1
  std::vector<std::string> evidence;  // what the rule saw, with numbers, strongest first
  std::vector<std::string> caveats;   // what it lacked: the reasons when the verdict is undetermined
};

using ScoreFn = RuleResult (*)(const Signals& s, const VerdictThresholds& t);

struct Rule {
  Bound bound;
  const char* name;
  ScoreFn score;
};

// The rule table: cpu, interrupt, bus, wait, none (undetermined is what is
// left when none of them wins clearly).
std::span<const Rule> VerdictRules();

// The wait rule (analysis/rule_wait.cc).
RuleResult WaitRule(const Signals& s, const VerdictThresholds& t);

// What the rules share (rules.cc).
// 0 at or below lo, 1 at or above hi, linear between.
double Ramp(double x, double lo, double hi);
std::string CpuName(int cpu);  // "cpu1"
// How saturated a CPU is: 0 below 1 - 2 x cpu_idle_max busy, full at
// 1 - cpu_idle_max, weighted down when only accounting measured it.
double CpuSaturation(const CpuSignal& c, const VerdictThresholds& t);
// "cpu0: 2.1 % delivered idle (soaker), 81.0 % accounting busy, 18.6 % hidden time"
std::string CpuSentence(const CpuSignal& c);
// "cpu1 saturated (97.0 % busy by the soaker, saturated from 95.0 %)"; "near
// saturation" on CpuSaturation's ramp, "not saturated" under it.
std::string SaturationSentence(const CpuSignal& c, const VerdictThresholds& t);
// "losses at the socket rung: 122 datagrams/s", or every rung's rate when none loses.
std::string LadderSentence(const LadderSignal& l);
// Said when the interfaces off the packet path received more than the packet
// path was offered (and at least kOffPathShownPerSecond): "load: lo received
// 12.3 k packets/s, off the packet path: not counted as offered load ...".
// Empty otherwise.
inline constexpr double kOffPathShownPerSecond = 100;
std::string OffPathSentence(const Signals& s);
// Said for each loopback interface on the packet path receiving at least
// kOffPathShownPerSecond: how it was counted. By its trusted live capture:
// "load: lo counted once per echo by its live capture: 4000 requests/s
// received, 3990 replies/s sent"; else that its counters count an echo twice.
std::vector<std::string> LoopbackSentences(const Signals& s);

// Number formatting shared by the rules: 0.81 -> "81.0 %", 122.4 -> "122",
// 31200 -> "31.2 k", 2.25 -> "2.2" (plain printf rounding).
std::string FormatPercent(double ratio);
std::string FormatRate(double per_second);
std::string FormatScore(double score);  // "0.93"

}  // namespace bottleneckd
