// Counter arithmetic for windows: the delta of a cumulative kernel counter
// between two samples, with wrap (32-bit counters) and reset (interface
// re-created, driver reloaded) told apart and never turned into spikes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bottleneckd {

enum class CounterWidth { k32, k64 };

enum class CounterAnomaly { kWrap, kReset };

// One counter that went backwards in a window.
struct CounterIssue {
  std::string source;  // "netdev", "interrupts", "softnet", ...
  std::string key;     // "eth0/rx_packets", "irq 38/cpu1"
  CounterAnomaly kind;
};

// Delta of a counter from prev to cur.
// - cur >= prev: cur - prev.
// - 32-bit counter with prev near the top (the wrapped delta is under 2^31):
//   a wrap; returns the wrapped delta and records kWrap.
// - otherwise: a reset; returns nullopt (no rate this window) and records kReset.
// `issues` may be null; the key "object/counter" is only built on an anomaly.
std::optional<uint64_t> CounterDelta(uint64_t prev, uint64_t cur, CounterWidth width, std::vector<CounterIssue>* issues,
                                     const char* source, std::string_view object, std::string_view counter);

}  // namespace bottleneckd
