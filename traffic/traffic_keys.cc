// Flow keys (comparison, canonical order, hashing), the payload fingerprint
// and the space-saving top-flows table (see traffic_flows.h). The hashes take
// 16 bytes per multiply: they run for every packet.
#include <algorithm>
#include <cstring>
#include <utility>

#include "traffic/traffic_flows.h"

namespace bottleneckd {
namespace {

uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

// A 64 x 64 -> 128-bit multiply folded to 64 bits (wyhash's "mum" step):
// one multiply instruction mixes two words into every output bit. It
// replaced a multiply per 8 bytes and MurmurHash3's finaliser (flow key
// hash and fingerprint were 16 % of a capture file's analysis,
// docs/performance.md).
uint64_t Mum(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

// Odd constants with about half their bits set (wyhash's), xored into the
// words so that zero words still multiply to something.
constexpr uint64_t kP0 = 0xa0761d6478bd642fULL, kP1 = 0xe7037ed1a0b428dbULL;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ULL, kP3 = 0x589965cc75374cc3ULL;

const char* ProtocolName(uint8_t protocol) {
  switch (protocol) {
    case 1: return "icmp";
    case 2: return "igmp";
    case 6: return "tcp";
    case 17: return "udp";
    case 47: return "gre";
    case 50: return "esp";
    case 58: return "icmp6";
    case 132: return "sctp";
    default: return nullptr;
  }
}

std::string Endpoint(const std::array<uint8_t, 16>& addr, bool ipv6, uint16_t port, bool ports) {
  std::string a = FormatAddress(addr, ipv6);
  if (!ports) return a;
  if (ipv6) a = "[" + a + "]";
  return a + ":" + std::to_string(port);
}

}  // namespace

FlowKey FlowKey::Reversed() const {
  FlowKey r = *this;
  std::swap(r.src, r.dst);
  std::swap(r.src_port, r.dst_port);
  return r;
}

std::string FlowKey::ToString() const {
  const char* name = ProtocolName(protocol);
  std::string out = name != nullptr ? name : "proto " + std::to_string(protocol);
  bool ports = protocol == 6 || protocol == 17 || protocol == 132 || src_port != 0 || dst_port != 0;
  return out + " " + Endpoint(src, ipv6, src_port, ports) + " > " + Endpoint(dst, ipv6, dst_port, ports);
}

namespace traffic_internal {

FlowKey Canonical(const FlowKey& k) {
  // Any total order on endpoints will do: (address words, port), compared
  // word by word (a tuple of them was 5 % of a capture file's analysis).
  const uint64_t s0 = Load64(k.src.data()), d0 = Load64(k.dst.data());
  if (s0 != d0) return d0 < s0 ? k.Reversed() : k;
  const uint64_t s1 = Load64(k.src.data() + 8), d1 = Load64(k.dst.data() + 8);
  if (s1 != d1) return d1 < s1 ? k.Reversed() : k;
  return k.dst_port < k.src_port ? k.Reversed() : k;
}

void MergeStats(FlowStats* into, const FlowStats& s) {
  const bool same_way = !(s.key == into->key.Reversed());
  into->requests += same_way ? s.requests : s.replies;
  into->replies += same_way ? s.replies : s.requests;
  into->paired += s.paired;
  into->lost += s.lost;
  into->bytes += s.bytes;
  into->packets += s.packets;
}

bool KeyLess(const FlowKey& a, const FlowKey& b) {
  return std::tie(a.ipv6, a.protocol, a.src, a.dst, a.src_port, a.dst_port) <
         std::tie(b.ipv6, b.protocol, b.src, b.dst, b.src_port, b.dst_port);
}

size_t FlowKeyHash::operator()(const FlowKey& k) const {
  const uint64_t head =
      (uint64_t{k.src_port} << 32) | (uint64_t{k.dst_port} << 16) | (uint64_t{k.protocol} << 8) | uint64_t{k.ipv6};
  const uint64_t a = Mum(Load64(k.src.data()) ^ kP0, Load64(k.dst.data()) ^ kP1);
  const uint64_t b = Mum(Load64(k.src.data() + 8) ^ kP2, Load64(k.dst.data() + 8) ^ kP3);
  return static_cast<size_t>(Mum(a ^ head ^ kP1, b ^ kP2));
}

uint64_t Fingerprint(uint32_t payload_length, const uint8_t* data, size_t n) {
  uint64_t h = Mum(payload_length ^ kP0, kP1);
  if (data == nullptr) n = 0;
  for (; n >= 16; n -= 16, data += 16) h = Mum(Load64(data) ^ h ^ kP2, Load64(data + 8) ^ kP3);
  if (n > 0) {
    uint64_t w[2] = {0, 0};
    std::memcpy(w, data, n);
    h = Mum(w[0] ^ h ^ kP2, w[1] ^ kP3 ^ (uint64_t{n} << 56));
  }
  return h;
}

// ---- SpaceSaving ----

void SpaceSaving::Swap(size_t i, size_t j) {
  std::swap(heap_[i], heap_[j]);
  slots_[heap_[i].slot].pos = i;
  slots_[heap_[j].slot].pos = j;
}

void SpaceSaving::SiftDown(size_t i) {
  for (;;) {
    size_t least = i, l = 2 * i + 1, r = l + 1;
    if (l < heap_.size() && Count(l) < Count(least)) least = l;
    if (r < heap_.size() && Count(r) < Count(least)) least = r;
    if (least == i) return;
    Swap(i, least);
    i = least;
  }
}

size_t SpaceSaving::Probe(const FlowKey& canon, size_t hash) const {
  return index_.Find(hash, [&](uint32_t c) { return slots_[c - 1].canon == canon; });
}

void SpaceSaving::Reindex(size_t cells) {
  index_.Reset(cells);
  for (uint32_t s = 0; s < slots_.size(); ++s)
    index_.Set(Probe(slots_[s].canon, slots_[s].hash), s + 1, slots_[s].hash);
}

void SpaceSaving::SiftUp(size_t i) {
  for (; i > 0 && Count((i - 1) / 2) > Count(i); i = (i - 1) / 2) Swap(i, (i - 1) / 2);
}

void SpaceSaving::Add(const FlowKey& canon, size_t hash, const FlowStats& s) {
  if (capacity_ == 0 || s.packets == 0) return;
  if (index_.cells() == 0) Reindex(16);
  size_t cell = Probe(canon, hash);
  if (index_.at(cell) != 0) {
    Slot& slot = slots_[index_.at(cell) - 1];
    MergeStats(&slot.stats, s);
    heap_[slot.pos].count = slot.stats.packets;
    SiftDown(slot.pos);
  } else if (slots_.size() < capacity_) {
    const auto n = static_cast<uint32_t>(slots_.size());
    slots_.push_back(Slot{canon, s, heap_.size(), hash});
    slots_.back().stats.packets_error = 0;
    heap_.push_back(HeapEntry{s.packets, n});
    if (slots_.size() * 2 > index_.cells()) {
      Reindex(index_.cells() * 2);
    } else {
      index_.Set(cell, n + 1, hash);
    }
    SiftUp(heap_.size() - 1);
  } else {
    const uint32_t n = heap_[0].slot;
    Slot& slot = slots_[n];
    const uint64_t least = slot.stats.packets;
    index_.Erase(index_.Find(slot.hash, [n](uint32_t c) { return c == n + 1; }));
    slot.canon = canon;
    slot.hash = hash;
    slot.stats = s;
    slot.stats.packets = least + s.packets;
    slot.stats.packets_error = least;
    heap_[0].count = slot.stats.packets;
    index_.Set(Probe(canon, hash), n + 1, hash);  // probed again: the erase may have shifted cells
    SiftDown(0);
  }
}

const FlowStats* SpaceSaving::Find(const FlowKey& canon, size_t hash) const {
  if (index_.cells() == 0) return nullptr;
  uint32_t c = index_.at(Probe(canon, hash));
  return c == 0 ? nullptr : &slots_[c - 1].stats;
}

}  // namespace traffic_internal
}  // namespace bottleneckd
