// The tracked flow pairs with their outstanding requests: LRU eviction,
// pairing, expiry and the lossy flows (see traffic_flows.h).
#include "traffic/traffic_flows.h"

#include <algorithm>
#include <utility>

namespace bottleneckd::traffic_internal {

// ---- ChainTable ----

ChainTable::Entry* ChainTable::Find(uint64_t fingerprint) {
  if (size_ == 0) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = fingerprint & mask;; i = (i + 1) & mask) {
    Entry& e = slots_[i];
    if (e.head == kFree) return nullptr;
    if (e.fingerprint == fingerprint) return &e;
  }
}

std::pair<ChainTable::Entry*, bool> ChainTable::TryEmplace(uint64_t fingerprint, uint64_t seq) {
  if ((size_ + 1) * 4 > slots_.size() * 3) Rehash(std::max<size_t>(16, slots_.size() * 2));
  const size_t mask = slots_.size() - 1;
  for (size_t i = fingerprint & mask;; i = (i + 1) & mask) {
    Entry& e = slots_[i];
    if (e.head == kFree) {
      e = Entry{fingerprint, seq, seq, 0, 1};
      ++size_;
      return {&e, true};
    }
    if (e.fingerprint == fingerprint) return {&e, false};
  }
}

void ChainTable::Erase(Entry* e) {
  const size_t mask = slots_.size() - 1;
  size_t hole = static_cast<size_t>(e - slots_.data());
  // Backward shift: an entry after the hole moves into it when the hole lies
  // between the entry's home cell and the entry (so lookups still reach it).
  for (size_t j = (hole + 1) & mask; slots_[j].head != kFree; j = (j + 1) & mask) {
    size_t home = slots_[j].fingerprint & mask;
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole].head = kFree;
  --size_;
}

void ChainTable::Shrink() {
  if (size_ == 0) {
    std::vector<Entry>().swap(slots_);
    return;
  }
  size_t n = 16;
  while (size_ * 4 > n * 3) n *= 2;
  if (n < slots_.size()) Rehash(n);
}

void ChainTable::Rehash(size_t n) {
  std::vector<Entry> prev(n, Entry{0, kFree, kFree, 0, 0});
  prev.swap(slots_);  // prev: the old table
  const size_t mask = n - 1;
  for (const Entry& e : prev) {
    if (e.head == kFree) continue;
    size_t i = e.fingerprint & mask;
    while (slots_[i].head != kFree) i = (i + 1) & mask;
    slots_[i] = e;
  }
}

// ---- FlowTracker ----

FlowTracker::FlowTracker(const TrafficOptions& o) : o_(o), top_(o.top_flows) {
  o_.max_tracked_flows = std::max<size_t>(o_.max_tracked_flows, 1);
  o_.max_outstanding = std::max<size_t>(o_.max_outstanding, 1);
  o_.max_outstanding_total = std::max<size_t>(o_.max_outstanding_total, 1);
}

FlowTracker::Pair* FlowTracker::Lookup(const FlowKey& canon, size_t hash, const FlowKey& key, double now,
                                       TrafficSummary* sum) {
  if (pairs_.cells() == 0) pairs_.Reset(16);
  auto same = [&canon](const Pair* q) { return q->canon == canon; };
  size_t cell = pairs_.Find(hash, same);
  if (Pair* p = pairs_.at(cell)) {
    lru_.splice(lru_.begin(), lru_, p->self);
    return p;
  }
  if (lru_.size() >= o_.max_tracked_flows) {
    Evict(now, sum);
    cell = pairs_.Find(hash, same);  // the eviction may have shifted cells
  }
  lru_.emplace_front();
  Pair& p = lru_.front();
  p.canon = canon;
  p.hash = hash;
  p.self = lru_.begin();
  p.stats.key = key;
  p.evicted_before = evicted_.Test(hash);
  if (lru_.size() * 2 > pairs_.cells()) {
    pairs_.Reset(pairs_.cells() * 2);
    for (Pair& q : lru_) pairs_.Set(pairs_.Find(q.hash, [](const Pair*) { return false; }), &q, q.hash);
  } else {
    pairs_.Set(cell, &p, hash);
  }
  return &p;
}

void FlowTracker::Evict(double now, TrafficSummary* sum) {
  Pair& p = lru_.back();
  Settle(&p, now, &sum->evicted_outstanding, sum);
  if (p.stats.lost > 0) RememberLossy(p);
  top_.Add(p.canon, p.hash, p.stats);
  evicted_.Set(p.hash);
  alive_ -= p.alive;
  pairs_.Erase(pairs_.Find(p.hash, [&p](const Pair* q) { return q == &p; }));
  lru_.pop_back();
}

void FlowTracker::Settle(Pair* p, double now, uint64_t* young, TrafficSummary* sum) {
  // Every request, not only the front: timestamps may step back, so an old
  // request can sit behind a younger one. One a later reply passed over is
  // lost too, whatever its age: its answer would have come before that one.
  uint64_t lost = 0;
  for (size_t i = p->head; i < p->queue.size(); ++i) {
    const Request& r = p->queue[i];
    if (r.done) continue;
    const ChainTable::Entry* chain = p->chains.Find(r.fingerprint);
    if (now - r.ts > o_.reply_timeout_seconds || (chain != nullptr && r.seq < chain->fresh_from)) {
      ++lost;
    } else {
      ++*young;
    }
  }
  CountLost(p, lost, sum);
}

void FlowTracker::CountLost(Pair* p, uint64_t n, TrafficSummary* sum) {
  if (n == 0) return;
  p->stats.lost += n;
  sum->lost += n;
}

void FlowTracker::Reset(Pair* p) {
  constexpr size_t kKeep = 64;
  if (p->queue.capacity() > kKeep) {
    std::vector<Request>().swap(p->queue);
  } else {
    p->queue.clear();
  }
  p->head = 0;
  if (p->chains.capacity() > kKeep) p->chains.Shrink();  // empty now: frees it
}

void FlowTracker::PopDoneFront(Pair* p) {
  while (p->head < p->queue.size() && p->queue[p->head].done) ++p->head;
  if (p->head == p->queue.size()) Reset(p);
}

void FlowTracker::DropOldest(Pair* p) {
  PopDoneFront(p);
  if (p->head == p->queue.size()) return;
  // The oldest outstanding request is the oldest of its fingerprint too.
  Request& r = p->queue[p->head];
  Unlink(p, p->chains.Find(r.fingerprint), r);
  PopDoneFront(p);
}

void FlowTracker::Expire(Pair* p, double now, TrafficSummary* sum) {
  PopDoneFront(p);
  uint64_t lost = 0;
  while (p->head < p->queue.size() && now - p->queue[p->head].ts > o_.reply_timeout_seconds) {
    DropOldest(p);
    ++lost;
  }
  CountLost(p, lost, sum);
}

namespace {

template <typename Queue>
auto FindSeq(Queue& q, size_t head, uint64_t seq) {
  return std::lower_bound(q.begin() + static_cast<ptrdiff_t>(head), q.end(), seq,
                          [](const auto& r, uint64_t s) { return r.seq < s; });
}

}  // namespace

void FlowTracker::Unlink(Pair* p, ChainTable::Entry* chain, Request& r) {
  r.done = true;
  --p->alive;
  --alive_;
  if (r.seq >= chain->fresh_from) --chain->fresh;
  if (r.prev_same == kNone && r.next_same == kNone) {
    p->chains.Erase(chain);
    return;
  }
  if (r.prev_same == kNone) {
    chain->head = r.next_same;
  } else {
    FindSeq(p->queue, p->head, r.prev_same)->next_same = r.next_same;
  }
  if (r.next_same == kNone) {
    chain->tail = r.prev_same;
  } else {
    FindSeq(p->queue, p->head, r.next_same)->prev_same = r.prev_same;
  }
}

void FlowTracker::Enqueue(Pair* p, double ts, double now, uint64_t fingerprint, TrafficSummary* sum) {
  // All pairs full: the least recently seen pairs go first (each eviction
  // removes a pair, so this costs amortised O(1) per pair created); `p` is
  // the most recently seen.
  while (alive_ >= o_.max_outstanding_total && &lru_.back() != p) Evict(now, sum);
  if (p->alive > 0 && (p->alive >= o_.max_outstanding || alive_ >= o_.max_outstanding_total)) {
    DropOldest(p);
    CountLost(p, 1, sum);
  }
  auto& q = p->queue;
  if (q.size() > 2 * p->alive + 16) {
    // Compact: drop the consumed front and the answered holes (amortised:
    // at least half the entries go), and the memory of a past burst.
    q.erase(q.begin(), q.begin() + static_cast<ptrdiff_t>(p->head));
    q.erase(std::remove_if(q.begin(), q.end(), [](const Request& r) { return r.done; }), q.end());
    p->head = 0;
    if (q.capacity() > 4 * (q.size() + 16)) q.shrink_to_fit();
    if (p->chains.capacity() > 4 * (p->chains.size() + 16)) p->chains.Shrink();
  }
  uint64_t seq = p->next_seq++;
  auto [chain, inserted] = p->chains.TryEmplace(fingerprint, seq);
  uint64_t prev = kNone;
  if (!inserted) {
    FindSeq(p->queue, p->head, chain->tail)->next_same = seq;
    prev = chain->tail;
    chain->tail = seq;
    ++chain->fresh;
  }
  q.push_back(Request{.seq = seq, .ts = ts, .fingerprint = fingerprint, .prev_same = prev});
  ++p->alive;
  ++alive_;
}

bool FlowTracker::Match(Pair* p, uint64_t fingerprint, double* request_ts, bool* ambiguous) {
  ChainTable::Entry* chain = p->chains.Find(fingerprint);
  if (chain == nullptr) return false;
  // Fresh requests are the chain's newest: the tail is fresh when any is.
  const bool fresh = chain->fresh > 0;
  *ambiguous = fresh ? chain->fresh > 1 : true;
  Request& r = *FindSeq(p->queue, p->head, fresh ? chain->tail : chain->head);
  *request_ts = r.ts;
  const uint64_t next_seq = p->next_seq;
  const bool last = r.prev_same == kNone && r.next_same == kNone;
  Unlink(p, chain, r);
  if (fresh && !last) {  // the others outstanding are passed over now
    chain->fresh_from = next_seq;
    chain->fresh = 0;
  }
  PopDoneFront(p);
  return true;
}

FlowOutcome FlowTracker::Add(double ts, double now, const FlowKey& key, uint32_t wirelen, bool pairable,
                             uint64_t fingerprint, TrafficSummary* sum) {
  const FlowKey canon = Canonical(key);
  const size_t hash = FlowKeyHash()(canon);
  Pair& p = *Lookup(canon, hash, key, now, sum);
  FlowOutcome out;
  out.request = key == p.stats.key;
  p.stats.bytes += wirelen;
  ++(out.request ? p.stats.requests : p.stats.replies);
  ++p.stats.packets;
  ++(out.request ? sum->requests : sum->replies);
  (out.request ? sum->request_bytes : sum->reply_bytes) += wirelen;
  if (!pairable) return out;

  Expire(&p, now, sum);
  if (out.request) {
    Enqueue(&p, ts, now, fingerprint, sum);
    return out;
  }
  double request_ts = 0;
  bool ambiguous = false;
  if (!Match(&p, fingerprint, &request_ts, &ambiguous)) {
    ++sum->unmatched_replies;
    return out;
  }
  out.paired = true;
  ++p.stats.paired;
  ++sum->paired;
  if (ambiguous) {
    ++sum->ambiguous_pairs;
  } else {
    sum->turnaround.Add(std::max(0.0, ts - request_ts));
  }
  return out;
}

void FlowTracker::ExpireAll(double now, TrafficSummary* sum) {
  for (Pair& p : lru_) Expire(&p, now, sum);
}

void FlowTracker::Finish(double now, TrafficSummary* sum) {
  for (Pair& p : lru_) Settle(&p, now, &sum->outstanding_at_end, sum);
  FillFlows(sum);
  lru_.clear();
  pairs_ = {};
  alive_ = 0;
}

namespace {

bool MoreLost(const FlowStats& a, const FlowStats& b) {
  if (a.lost != b.lost) return a.lost > b.lost;
  if (a.packets != b.packets) return a.packets > b.packets;
  return KeyLess(a.key, b.key);
}

bool MorePackets(const FlowStats& a, const FlowStats& b) {
  if (a.packets != b.packets) return a.packets > b.packets;
  return KeyLess(a.key, b.key);
}

}  // namespace

void FlowTracker::RememberLossy(const Pair& p) {
  if (o_.top_flows == 0) return;
  for (FlowStats& e : evicted_lossy_) {
    if (Canonical(e.key) == p.canon) {
      MergeStats(&e, p.stats);
      return;
    }
  }
  if (evicted_lossy_.size() < o_.top_flows) {
    evicted_lossy_.push_back(p.stats);
    return;
  }
  auto least = std::min_element(evicted_lossy_.begin(), evicted_lossy_.end(),
                                [](const FlowStats& a, const FlowStats& b) { return a.lost < b.lost; });
  if (p.stats.lost > least->lost) *least = p.stats;
}

std::vector<FlowStats> FlowTracker::TopFlows() const {
  if (o_.top_flows == 0) return {};
  std::vector<FlowStats> all;
  all.reserve(lru_.size() + o_.top_flows);
  const uint64_t floor = top_.Floor();
  for (const Pair& p : lru_) {
    FlowStats s = p.stats;
    if (const FlowStats* c = top_.Find(p.canon, p.hash)) {
      MergeStats(&s, *c);
      s.packets_error = c->packets_error;
    } else if (p.evicted_before) {
      // Its earlier counts may have gone with a counter another pair took
      // over: at most the smallest count.
      s.packets += floor;
      s.packets_error = floor;
    }
    all.push_back(s);
  }
  top_.ForEach([&](const FlowKey& canon, size_t hash, const FlowStats& c) {
    auto same = [&canon](const Pair* q) { return q->canon == canon; };
    if (pairs_.cells() == 0 || pairs_.at(pairs_.Find(hash, same)) == nullptr) all.push_back(c);
  });
  const size_t n = std::min(all.size(), o_.top_flows);
  std::partial_sort(all.begin(), all.begin() + static_cast<ptrdiff_t>(n), all.end(), MorePackets);
  all.resize(n);
  return all;
}

void FlowTracker::FillFlows(TrafficSummary* sum) const {
  sum->top_flows = TopFlows();
  std::vector<FlowStats> lossy;
  std::unordered_map<FlowKey, size_t, FlowKeyHash> at;
  auto add = [&](const FlowStats& s) {
    if (s.lost == 0) return;
    auto [it, inserted] = at.try_emplace(Canonical(s.key), lossy.size());
    if (inserted) {
      lossy.push_back(s);
    } else {
      MergeStats(&lossy[it->second], s);
    }
  };
  for (const FlowStats& s : evicted_lossy_) add(s);
  for (const Pair& p : lru_) add(p.stats);
  std::sort(lossy.begin(), lossy.end(), MoreLost);
  if (lossy.size() > o_.top_flows) lossy.resize(o_.top_flows);
  sum->lossy_flows = std::move(lossy);
}

}  // namespace bottleneckd::traffic_internal
