// Traffic analysis: what libpcap saw, per window or per capture file — packet
// and byte rates per direction, a packet-size histogram, the top flows by
// packets (a bounded table, so memory stays flat under a flood of new flows),
// and UDP echo pairing: a request and the reply with swapped addresses and
// ports and the same payload give the turnaround time (percentiles) and the
// requests never answered (loss per flow), as in the seeds' table of applied
// vs echoed rate. Definitions, bounds and a worked example:
// docs/traffic-analysis.md.
//
// Direction: the first packet seen of a flow pair (A:p -> B:q) makes A the
// requester: A->B packets are requests ("applied"), B->A packets replies
// ("echoed"), for every protocol. Pairing (UDP only) matches a reply to the
// oldest outstanding request of the reverse flow with the same payload
// fingerprint (payload length and a hash of its first captured bytes); a
// request unanswered after `reply_timeout_seconds` is lost. Memory is bounded
// by the options below whatever the traffic. Not thread-safe: one analyzer
// per thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "traffic/packet.h"

namespace bottleneckd {

struct TrafficOptions {
  size_t top_flows = 16;            // flows listed; space-saving counters for evicted pairs; also bounds lossy_flows
  size_t max_tracked_flows = 4096;  // flow pairs tracked for pairing; the least recently seen is evicted (min 1)
  size_t max_outstanding = 4096;    // unanswered requests kept per flow pair (oldest counted lost when full; min 1)
  size_t max_outstanding_total = 262144;  // over all pairs: when full, least recently seen pairs are evicted
  double reply_timeout_seconds = 1.0;     // a request unanswered for longer than this is lost
  uint32_t fingerprint_bytes = 32;        // payload bytes hashed into the fingerprint
  size_t max_seconds = 1000000;           // rows of the per-second table (oldest dropped beyond; min 1)
};

// Packet-size histogram bounds (frame length on the wire): <= 64, 128, 256,
// 512, 1024, 1518, 9018, larger.
inline constexpr uint32_t kSizeBounds[] = {64, 128, 256, 512, 1024, 1518, 9018};
inline constexpr size_t kSizeBuckets = sizeof(kSizeBounds) / sizeof(kSizeBounds[0]) + 1;

// Index into TrafficSummary::sizes of a frame of `wirelen` bytes.
size_t SizeBucket(uint32_t wirelen);

struct FlowKey {
  bool ipv6 = false;
  uint8_t protocol = 0;
  std::array<uint8_t, 16> src{}, dst{};
  uint16_t src_port = 0, dst_port = 0;
  // Byte for byte (no padding, asserted below): inline, as it runs for
  // every packet (called, it was 5 % of a capture file's analysis).
  bool operator==(const FlowKey& o) const { return std::memcmp(this, &o, sizeof(FlowKey)) == 0; }
  FlowKey Reversed() const;
  // "udp 10.0.0.1:40000 > 10.0.0.2:7", "udp [2001:db8::1]:40000 > [2001:db8::2]:7",
  // "icmp 10.0.0.1 > 10.0.0.2" (no ports), "proto 47 ..." (no name known).
  std::string ToString() const;
};

static_assert(sizeof(FlowKey) == 38 && std::has_unique_object_representations_v<FlowKey>,
              "FlowKey::operator== compares bytes: no padding");

struct FlowStats {
  FlowKey key;  // requester -> responder
  uint64_t requests = 0, replies = 0, paired = 0, lost = 0;
  uint64_t bytes = 0;    // both directions, wire length
  uint64_t packets = 0;  // both directions (for top flows: an upper bound once pairs were evicted)
  // Top flows only: how much `packets` may over-count (the space-saving
  // error: the true count is in [packets - packets_error, packets]; 0 while
  // no pair was evicted). The other fields count while the pair was tracked
  // plus what its counter gathered since it last took it over, so they are
  // exact when packets_error is 0.
  uint64_t packets_error = 0;
  bool operator==(const FlowStats&) const = default;
};

// Turnaround percentiles from a log-bucketed histogram (1 % relative error,
// 1 us to 100 s; values outside clamp to the ends); bounded memory (~7 KiB).
class LatencyHistogram {
 public:
  void Add(double seconds);
  uint64_t count() const { return count_; }
  // Nearest rank: the smallest value with at least p % of the values at or
  // below it, as its bucket's centre (clamped to [Min(), Max()]). p in
  // [0, 100] (clamped); 0 when empty.
  double Percentile(double p) const;
  double Max() const { return max_; }
  double Min() const { return min_; }
  double Sum() const { return sum_; }  // of the values added (after clamping at 0)
  void Merge(const LatencyHistogram& o);
  // The values added since `earlier`, an older copy of this histogram (a
  // cumulative histogram's window). Min and max become the edges of the
  // lowest and highest non-empty bucket, clamped to this histogram's own
  // (exact values are not kept per bucket). When `earlier` is not an older
  // copy (a bucket went down: the histogram was reset), returns this one.
  LatencyHistogram Since(const LatencyHistogram& earlier) const;
  // Values at or below `seconds` (by bucket: exact to the 2 % bucket width),
  // for cumulative Prometheus histogram buckets.
  uint64_t CountAtOrBelow(double seconds) const;

  // The histogram's parts, for a file that keeps it whole (a recorded capture
  // reading, sources/capture.h): the non-empty buckets as (index, count),
  // ascending. FromParts rebuilds it; false (and *out untouched) when a
  // bucket index is out of range or repeated, the counts do not add up to
  // `count`, or min, max and sum are not finite, ordered and non-negative.
  std::vector<std::pair<uint32_t, uint64_t>> NonEmptyBuckets() const;
  static bool FromParts(const std::vector<std::pair<uint32_t, uint64_t>>& buckets, uint64_t count, double min,
                        double max, double sum, LatencyHistogram* out);
  bool operator==(const LatencyHistogram&) const = default;

 private:
  std::vector<uint64_t> buckets_;  // empty until the first Add
  uint64_t count_ = 0;
  double max_ = 0, min_ = 0, sum_ = 0;
};

// One second (or one window) of traffic.
struct TrafficSecond {
  int64_t second = 0;  // Unix second (floor of the packet time)
  uint64_t packets = 0, bytes = 0;
  uint64_t requests = 0, replies = 0, paired = 0;  // paired: counted at the reply's second
  uint64_t request_bytes = 0, reply_bytes = 0;
};

struct TrafficSummary {
  uint64_t packets = 0, bytes = 0;                                                          // every frame
  uint64_t ip_packets = 0, not_ip = 0, truncated = 0, malformed = 0, unsupported_link = 0;  // by PacketStatus
  uint64_t fragments = 0;  // IP fragments (any), of the ip_packets
  uint64_t vlan_tagged = 0, ipv6 = 0;
  uint64_t udp = 0, tcp = 0, other = 0;  // of the ip_packets
  std::array<uint64_t, kSizeBuckets> sizes{};
  // requests/replies: packets of flows by direction (every protocol).
  // paired, lost, unmatched_replies, evicted_outstanding, outstanding_at_end:
  // UDP only. After Finish(), UDP requests = paired + lost +
  // evicted_outstanding + outstanding_at_end.
  uint64_t requests = 0, replies = 0, paired = 0, lost = 0, unmatched_replies = 0;
  uint64_t request_bytes = 0, reply_bytes = 0;  // wire length of the requests, replies
  uint64_t evicted_outstanding = 0;  // unanswered, not yet timed out, when their pair was evicted from the table
  uint64_t outstanding_at_end = 0;   // unanswered, not yet timed out, at Finish()
  // Pairs whose reply could answer another outstanding request with the same
  // payload as well (identical payloads in flight): counted in `paired`, not
  // in `turnaround`, which would be a guess.
  uint64_t ambiguous_pairs = 0;
  double first_ts = 0, last_ts = 0;  // smallest and largest packet time (seconds, capture clock)
  LatencyHistogram turnaround;
  // Continuous (a row for every second from the first to the last, zeros
  // included), ascending; at most max_seconds rows (oldest dropped; a silence
  // longer than that starts the table afresh).
  std::vector<TrafficSecond> seconds;
  uint64_t untabled_packets = 0;       // packets in no row (rows dropped, or too early to fit)
  std::vector<FlowStats> top_flows;    // by packets, descending (Finish/Snapshot only)
  std::vector<FlowStats> lossy_flows;  // flows with loss, most lost first, at most top_flows (Finish/Snapshot only)
};

class TrafficAnalyzer {
 public:
  explicit TrafficAnalyzer(const TrafficOptions& o = {});
  ~TrafficAnalyzer();
  TrafficAnalyzer(TrafficAnalyzer&&) noexcept;
  TrafficAnalyzer& operator=(TrafficAnalyzer&&) noexcept;
  TrafficAnalyzer(const TrafficAnalyzer&) = delete;
  TrafficAnalyzer& operator=(const TrafficAnalyzer&) = delete;

  // One parsed frame at capture time `ts` (seconds). `frame` is the frame the
  // info was parsed from (its payload, at info.payload_offset, is
  // fingerprinted; never read past info.caplen; may be null: then only the
  // payload length is). Unparsed frames (status != kOk) are counted only;
  // later IP fragments (no ports) are counted but belong to no flow.
  void Add(double ts, PacketStatus status, const PacketInfo& info, const uint8_t* frame);
  // Ends the analysis: requests still outstanding at the end count as lost
  // only when older than the timeout at the last packet's time (else they
  // are left out, in outstanding_at_end: the capture ended before their reply
  // could come). Fills top_flows and lossy_flows. The analyzer is then empty,
  // as newly constructed.
  TrafficSummary Finish();
  // The summary so far without ending it (a live window): cumulative counters,
  // seconds and turnaround; top_flows and lossy_flows are left empty.
  const TrafficSummary& current() const { return summary_; }
  // A copy of current() with top_flows and lossy_flows filled (O(tracked
  // flows), plus the copy of the seconds table: a live collector keeps
  // max_seconds small).
  TrafficSummary Snapshot() const;
  // Counts as lost the requests older than the timeout at `now` in every
  // tracked pair (otherwise a pair's requests expire only when a packet of
  // that pair comes, it is evicted, or at Finish): a live collector calls it
  // at the end of each window, with the capture clock. O(tracked flows).
  void Expire(double now);
  size_t tracked_flows() const;  // for tests of the bound

 private:
  struct Private;
  // The row of `second` in summary_.seconds (added, with the gap before it,
  // and the oldest rows dropped to stay within max_seconds), or null when it
  // cannot be placed.
  TrafficSecond* Row(int64_t second);
  std::unique_ptr<Private> p_;
  TrafficSummary summary_;
  TrafficOptions o_;
};

}  // namespace bottleneckd
