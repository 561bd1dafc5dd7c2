// Flow tracking behind TrafficAnalyzer (internal to collectors/traffic*.cc):
// the flow pairs tracked for direction and UDP echo pairing (a table bounded
// by LRU eviction, each pair with a bounded queue of outstanding requests) and
// the space-saving table of top flows (Metwally, Agrawal and El Abbadi,
// "Efficient computation of frequent and top-k elements in data streams",
// ICDT 2005). Definitions: docs/traffic-analysis.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "collectors/traffic.h"

namespace bottleneckd::traffic_internal {

// The pair's key with the lower (address, port) endpoint as source, so both
// directions of a flow pair map to one key.
FlowKey Canonical(const FlowKey& k);
// Strict order on keys (for deterministic ties).
bool KeyLess(const FlowKey& a, const FlowKey& b);
struct FlowKeyHash {
  size_t operator()(const FlowKey& k) const;
};

// 64-bit hash of the payload length and `n` payload bytes (none when `data`
// is null), 8 bytes per multiply-xorshift step, MurmurHash3's finaliser.
uint64_t Fingerprint(uint32_t payload_length, const uint8_t* data, size_t n);

// Space-saving counters over canonical pair keys: counters in fixed slots,
// a min-heap of slot numbers on their count.
class SpaceSaving {
 public:
  explicit SpaceSaving(size_t capacity) : capacity_(capacity) {}
  // Counts one packet of `canon`; a flow not in the table takes over the
  // smallest counter when the table is full (its count becomes the error).
  // `key` (requester -> responder) names a counter it takes. Returns the
  // counter's stats (valid until the next Touch), null when capacity is 0.
  FlowStats* Touch(const FlowKey& canon, const FlowKey& key);
  FlowStats* Find(const FlowKey& canon);
  std::vector<FlowStats> Top() const;  // by packets descending
  size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    FlowKey canon;
    FlowStats stats;
    size_t pos;  // in heap_
  };
  uint64_t Count(size_t heap_pos) const;
  void SiftDown(size_t i);
  void Swap(size_t i, size_t j);
  size_t capacity_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> heap_;                                 // slot numbers, least count first
  std::unordered_map<FlowKey, uint32_t, FlowKeyHash> index_;  // canon -> slot
};

// What one packet did to its flow pair.
struct FlowOutcome {
  bool request = true;  // in the requester's direction
  bool paired = false;  // a reply that matched a request
};

class FlowTracker {
 public:
  explicit FlowTracker(const TrafficOptions& o);
  // One packet of flow `key` (as seen: src -> dst) at `ts`; `now` is the
  // latest packet time so far (expiry clock). `pairable`: UDP with ports,
  // `fingerprint` then set. Updates the flow counters of *sum (requests,
  // replies and their bytes, paired, lost, unmatched_replies,
  // evicted_outstanding, turnaround).
  FlowOutcome Add(double ts, double now, const FlowKey& key, uint32_t wirelen, bool pairable,
                  uint64_t fingerprint, TrafficSummary* sum);
  // Expires every pair at `now` (the last packet's time), counts what is left
  // in outstanding_at_end, fills top_flows and lossy_flows. Ends the tracker.
  void Finish(double now, TrafficSummary* sum);
  // Expires every pair at `now`.
  void ExpireAll(double now, TrafficSummary* sum);
  // Fills top_flows and lossy_flows as they stand.
  void FillFlows(TrafficSummary* sum) const;
  size_t tracked() const { return pairs_.size(); }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Request {
    uint64_t seq;
    double ts;
    uint64_t fingerprint;
    uint64_t next_same = kNone;  // next outstanding request with this fingerprint
    bool answered = false;
  };
  struct Chain {
    uint64_t head, tail;  // oldest and newest outstanding request with a fingerprint
  };
  struct Pair {
    FlowKey canon;
    FlowStats stats;
    // Outstanding requests by seq, from `head`; answered ones stay as holes
    // until they reach the front or the queue is compacted.
    std::vector<Request> queue;
    size_t head = 0, alive = 0;
    uint64_t next_seq = 0;
    std::unordered_map<uint64_t, Chain> chains;  // fingerprint -> its outstanding requests
  };
  using PairList = std::list<Pair>;

  PairList::iterator Lookup(const FlowKey& canon, const FlowKey& key, double now, TrafficSummary* sum);
  void Evict(double now, TrafficSummary* sum);
  // Empties a queue that has been drained, giving back the memory of a burst.
  static void Reset(Pair* p);
  void CountLost(Pair* p, uint64_t n, TrafficSummary* sum);
  // Removes the oldest outstanding request (the queue's front after holes).
  void DropOldest(Pair* p);
  void Expire(Pair* p, double now, TrafficSummary* sum);
  void Enqueue(Pair* p, double ts, double now, uint64_t fingerprint, TrafficSummary* sum);
  // Marks answered the oldest outstanding request with `fingerprint`; its
  // time in *request_ts. False when there is none.
  bool Match(Pair* p, uint64_t fingerprint, double* request_ts);
  void PopAnsweredFront(Pair* p);
  void RememberLossy(const Pair& p);

  TrafficOptions o_;
  PairList lru_;  // most recently seen first
  std::unordered_map<FlowKey, PairList::iterator, FlowKeyHash> pairs_;
  size_t alive_ = 0;  // outstanding requests over all pairs
  SpaceSaving top_;
  std::vector<FlowStats> evicted_lossy_;  // pairs evicted with loss, at most top_flows (most lost kept)
};

}  // namespace bottleneckd::traffic_internal
