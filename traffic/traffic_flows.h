// Flow tracking behind TrafficAnalyzer (internal to traffic/traffic*.cc):
// the flow pairs tracked for direction and UDP echo pairing (a table bounded
// by LRU eviction, each pair with a bounded queue of outstanding requests,
// counted exactly) and the space-saving table of the pairs evicted from it
// (Metwally, Agrawal and El Abbadi, "Efficient computation of frequent and
// top-k elements in data streams", ICDT 2005); the top flows are made of
// both. Definitions: docs/traffic-analysis.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "traffic/traffic.h"

namespace bottleneckd::traffic_internal {

// The pair's key with the lower (address, port) endpoint as source, so both
// directions of a flow pair map to one key.
FlowKey Canonical(const FlowKey& k);
// Adds the counts of `s`, a count of the same flow pair, to *into;
// requests and replies change places when s's requester is into's responder
// (a pair seen again after eviction takes its direction afresh).
void MergeStats(FlowStats* into, const FlowStats& s);
// Strict order on keys (for deterministic ties).
bool KeyLess(const FlowKey& a, const FlowKey& b);
struct FlowKeyHash {
  size_t operator()(const FlowKey& k) const;
};

// 64-bit hash of the payload length and `n` payload bytes (none when `data`
// is null), 16 bytes per 128-bit multiply folded to 64 bits.
uint64_t Fingerprint(uint32_t payload_length, const uint8_t* data, size_t n);

// Open addressing (linear probing, backward-shift deletion) from a payload
// fingerprint to the chain of outstanding requests that carry it. The
// fingerprint is already a mixed 64-bit hash, so its low bits index the table;
// no allocation per request and no division (the size is a power of two), as
// std::unordered_map would take (a node per request, a modulo per lookup).
// At most 3/4 full; Entry pointers are valid until the next TryEmplace.
class ChainTable {
 public:
  struct Entry {
    uint64_t fingerprint;
    uint64_t head, tail;  // oldest and newest outstanding request with it; head == kFree: unused
    // Requests from seq fresh_from on have not been passed over by a reply
    // (`fresh` of them are outstanding); the older ones were.
    uint64_t fresh_from = 0, fresh = 1;
  };
  static constexpr uint64_t kFree = UINT64_MAX;
  Entry* Find(uint64_t fingerprint);
  // The entry of `fingerprint`, added with the chain {seq, seq} (second: true)
  // when it was not there.
  std::pair<Entry*, bool> TryEmplace(uint64_t fingerprint, uint64_t seq);
  void Erase(Entry* e);
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  // Gives the memory back when empty, else rehashes to the smallest table.
  void Shrink();

 private:
  void Rehash(size_t n);
  std::vector<Entry> slots_;
  size_t size_ = 0;
};

// An open-addressing index (linear probing, backward-shift deletion) of
// elements kept elsewhere: each cell holds a reference (Ref{}: free) and the
// element's key hash, so probing and shifting never touch the elements. The
// caller keeps it at most half full and sized a power of two (Reset).
template <typename Ref>
class OpenIndex {
 public:
  void Reset(size_t cells) { cells_.assign(cells, Cell{}); }
  size_t cells() const { return cells_.size(); }
  // The cell holding the element with `hash` that `same(ref)` accepts, or the
  // free cell where such an element goes.
  template <typename Same>
  size_t Find(size_t hash, Same same) const {
    const size_t mask = cells_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Cell& c = cells_[i];
      if (c.ref == Ref{} || (c.hash == hash && same(c.ref))) return i;
    }
  }
  Ref at(size_t cell) const { return cells_[cell].ref; }
  void Set(size_t cell, Ref ref, size_t hash) { cells_[cell] = Cell{ref, hash}; }
  // Empties `cell`; a later element of its run moves back into the hole when
  // the hole lies between that element's home cell and it.
  void Erase(size_t cell) {
    const size_t mask = cells_.size() - 1;
    for (size_t j = (cell + 1) & mask; cells_[j].ref != Ref{}; j = (j + 1) & mask) {
      if (((j - cells_[j].hash) & mask) >= ((j - cell) & mask)) {
        cells_[cell] = cells_[j];
        cell = j;
      }
    }
    cells_[cell] = Cell{};
  }

 private:
  struct Cell {
    Ref ref{};
    size_t hash = 0;
  };
  std::vector<Cell> cells_;
};

// Space-saving counters over canonical pair keys, weighted: what the tracked
// pairs take with them when they are evicted (FlowTracker counts the tracked
// ones exactly). Counters in fixed slots, a min-heap of slot numbers (with
// their counts, for locality) on the count, and an OpenIndex of slot numbers
// + 1 on the key hash. O(log capacity) per eviction, nothing per packet.
class SpaceSaving {
 public:
  explicit SpaceSaving(size_t capacity) : capacity_(capacity) {}
  // Adds an evicted pair's counts (`hash`: FlowKeyHash of `canon`): to its
  // counter when it has one, else to a free counter, else it takes over the
  // smallest counter, whose count becomes its packets_error (the weighted
  // form of the algorithm: the new count is that count plus s.packets).
  void Add(const FlowKey& canon, size_t hash, const FlowStats& s);
  const FlowStats* Find(const FlowKey& canon, size_t hash) const;
  // How many packets a pair without a counter may have had counted into the
  // table (and dropped): the smallest count once every counter is taken, else 0.
  uint64_t Floor() const { return slots_.size() < capacity_ || heap_.empty() ? 0 : heap_[0].count; }
  template <typename F>
  void ForEach(F f) const {
    for (const Slot& s : slots_) f(s.canon, s.hash, s.stats);
  }

 private:
  struct Slot {
    FlowKey canon;
    FlowStats stats;
    size_t pos;   // in heap_
    size_t hash;  // FlowKeyHash of canon
  };
  struct HeapEntry {
    uint64_t count;  // == slots_[slot].stats.packets
    uint32_t slot;
  };
  uint64_t Count(size_t heap_pos) const { return heap_[heap_pos].count; }
  void SiftDown(size_t i);
  void SiftUp(size_t i);
  void Swap(size_t i, size_t j);
  // The index_ cell of `canon`, or the free cell where it goes.
  size_t Probe(const FlowKey& canon, size_t hash) const;
  void Reindex(size_t cells);
  size_t capacity_;
  std::vector<Slot> slots_;
  std::vector<HeapEntry> heap_;  // least count first
  OpenIndex<uint32_t> index_;    // slot + 1
};

// Canonical pair hashes that may have been evicted before: a bit per hash's
// low bits, set at each eviction. A pair created while its bit is clear has
// never been counted into the space-saving table, so its own counts are the
// whole truth; a set bit (perhaps another pair's) only widens its bound.
class EvictedFilter {
 public:
  void Set(size_t hash) { bits_[(hash >> 6) & (kWords - 1)] |= uint64_t{1} << (hash & 63); }
  bool Test(size_t hash) const { return (bits_[(hash >> 6) & (kWords - 1)] >> (hash & 63)) & 1; }

 private:
  static constexpr size_t kWords = 1024;  // 64 Kibit, 8 KiB
  std::vector<uint64_t> bits_ = std::vector<uint64_t>(kWords);
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
  FlowOutcome Add(double ts, double now, const FlowKey& key, uint32_t wirelen, bool pairable, uint64_t fingerprint,
                  TrafficSummary* sum);
  // Counts lost every outstanding request older than the timeout at `now`
  // (the last packet's time), the others in outstanding_at_end; fills
  // top_flows and lossy_flows. Ends the tracker.
  void Finish(double now, TrafficSummary* sum);
  // Expires every pair at `now`.
  void ExpireAll(double now, TrafficSummary* sum);
  // Fills top_flows and lossy_flows as they stand.
  void FillFlows(TrafficSummary* sum) const;
  // The top_flows pairs with the most packets: each tracked pair's own counts
  // plus its space-saving counter's (or the table's floor as error when it
  // may have had one), and the counters of pairs no longer tracked.
  std::vector<FlowStats> TopFlows() const;
  size_t tracked() const { return lru_.size(); }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Request {
    uint64_t seq;
    double ts;
    uint64_t fingerprint;
    uint64_t next_same = kNone;  // next outstanding request with this fingerprint
    uint64_t prev_same = kNone;  // previous one
    bool done = false;           // answered, or lost (timed out, dropped): no longer outstanding
  };
  struct Pair;
  using PairList = std::list<Pair>;
  struct Pair {
    FlowKey canon;
    size_t hash = 0;          // FlowKeyHash of canon
    PairList::iterator self;  // its node in lru_
    FlowStats stats;
    bool evicted_before = false;  // its hash's EvictedFilter bit was set when it was created
    // Outstanding requests by seq, from `head`; done ones stay as holes
    // until they reach the front or the queue is compacted.
    std::vector<Request> queue;
    size_t head = 0, alive = 0;
    uint64_t next_seq = 0;
    ChainTable chains;  // fingerprint -> its outstanding requests
  };

  Pair* Lookup(const FlowKey& canon, size_t hash, const FlowKey& key, double now, TrafficSummary* sum);
  void Evict(double now, TrafficSummary* sum);
  // Empties a queue that has been drained, giving back the memory of a burst.
  static void Reset(Pair* p);
  void CountLost(Pair* p, uint64_t n, TrafficSummary* sum);
  // Counts lost each outstanding request of *p older than the timeout at
  // `now`, and the others in *young (the pair is about to go).
  void Settle(Pair* p, double now, uint64_t* young, TrafficSummary* sum);
  // Removes the oldest outstanding request (the queue's front after holes).
  void DropOldest(Pair* p);
  void Expire(Pair* p, double now, TrafficSummary* sum);
  void Enqueue(Pair* p, double ts, double now, uint64_t fingerprint, TrafficSummary* sum);
  // Answers an outstanding request with `fingerprint` (docs/traffic-analysis.md,
  // "Pairing"): the newest when one came since the last reply of that
  // fingerprint (an echo answers the request it has just seen), the older
  // ones then passed over; else the oldest of those passed over (replies to a
  // burst). Its time in *request_ts; *ambiguous when the reply could answer
  // another request as well (several fresh, or one passed over): its
  // turnaround is not known. False when there is none. O(log queue).
  bool Match(Pair* p, uint64_t fingerprint, double* request_ts, bool* ambiguous);
  // Unlinks request `r` (outstanding, with seq `seq`) from its chain `chain`.
  void Unlink(Pair* p, ChainTable::Entry* chain, Request& r);
  void PopDoneFront(Pair* p);
  void RememberLossy(const Pair& p);

  TrafficOptions o_;
  PairList lru_;            // most recently seen first
  OpenIndex<Pair*> pairs_;  // of lru_'s pairs, at most half full
  size_t alive_ = 0;        // outstanding requests over all pairs
  SpaceSaving top_;         // of evicted pairs
  EvictedFilter evicted_;
  std::vector<FlowStats> evicted_lossy_;  // pairs evicted with loss, at most top_flows (most lost kept)
};

}  // namespace bottleneckd::traffic_internal
