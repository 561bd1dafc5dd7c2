// LatencyHistogram: log-spaced buckets, each 2 % wide, from 1 us to 100 s.
// A bucket [lo, 1.02 lo) is reported as its geometric centre lo * sqrt(1.02),
// within 0.995 % of any value in it.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "traffic/traffic.h"

namespace bottleneckd {
namespace {

constexpr double kLowest = 1e-6;
constexpr double kRatio = 1.02;
// Buckets to reach 100 s: ceil(ln(100 / 1e-6) / ln(1.02)) = ceil(930.2) = 931.
constexpr size_t kBuckets = 931;

// Bucket i is [Edge(i), Edge(i + 1)).
double Edge(size_t i) { return kLowest * std::pow(kRatio, static_cast<double>(i)); }

// Finding a bucket without a logarithm (one per paired reply: log() was 8 %
// of a capture file's analysis, docs/performance.md): the double's exponent
// and its top 7 mantissa bits name a cell less than 0.8 % wide, so at most
// one 2 % bucket edge lies inside it; the cell's table entry is the bucket of
// its lower end, and one comparison with the next edge finishes.
class BucketFinder {
 public:
  BucketFinder() {
    for (size_t i = 0; i <= kBuckets; ++i) edges_[i] = Edge(i);
    for (size_t c = 0; c < kCells; ++c) {
      const double lower = std::bit_cast<double>(uint64_t{kFirstCell + c} << kShift);
      const double* e = std::upper_bound(edges_.data(), edges_.data() + kBuckets, lower);
      first_[c] = static_cast<uint16_t>(e == edges_.data() ? 0 : e - edges_.data() - 1);
    }
  }
  size_t Of(double seconds) const {
    if (!(seconds > edges_[0])) return 0;  // NaN too
    if (seconds >= edges_[kBuckets - 1]) return kBuckets - 1;
    size_t i = first_[(std::bit_cast<uint64_t>(seconds) >> kShift) - kFirstCell];
    return seconds >= edges_[i + 1] ? i + 1 : i;
  }

 private:
  static constexpr int kShift = 52 - 7;  // exponent and 7 mantissa bits
  // Cells from 2^-20 (below 1e-6) to 2^7 (above 100 s).
  static constexpr uint64_t kFirstCell = std::bit_cast<uint64_t>(0x1p-20) >> kShift;
  static constexpr size_t kCells = (std::bit_cast<uint64_t>(0x1p7) >> kShift) - kFirstCell;
  std::array<double, kBuckets + 1> edges_;
  std::array<uint16_t, kCells> first_;
};

size_t BucketOf(double seconds) {
  static const BucketFinder finder;
  return finder.Of(seconds);
}

double Centre(size_t bucket) { return kLowest * std::pow(kRatio, static_cast<double>(bucket) + 0.5); }

}  // namespace

void LatencyHistogram::Add(double seconds) {
  if (!(seconds > 0)) seconds = 0;  // negative and NaN
  seconds = std::min(seconds, 1e9);
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  ++buckets_[BucketOf(seconds)];
  sum_ += seconds;
  if (count_ == 0) {
    min_ = max_ = seconds;
  } else {
    min_ = std::min(min_, seconds);
    max_ = std::max(max_, seconds);
  }
  ++count_;
}

double LatencyHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  if (!(p > 0)) p = 0;
  p = std::min(p, 100.0);
  // Nearest rank: ceil(p/100 * N), at least 1 (the tolerance keeps 90 % of
  // 1000 at rank 900 despite rounding).
  double x = p * static_cast<double>(count_) / 100.0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(x - 1e-9));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::clamp(Centre(i), min_, max_);
  }
  return max_;
}

void LatencyHistogram::Merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  for (size_t i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  if (count_ == 0) {
    min_ = o.min_;
    max_ = o.max_;
  } else {
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }
  count_ += o.count_;
  sum_ += o.sum_;
}

LatencyHistogram LatencyHistogram::Since(const LatencyHistogram& earlier) const {
  if (earlier.count_ == 0) return *this;
  if (earlier.count_ > count_ || buckets_.empty()) return *this;
  LatencyHistogram d;
  d.buckets_.assign(kBuckets, 0);
  size_t lowest = kBuckets, highest = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    if (earlier.buckets_[i] > buckets_[i]) return *this;  // not an older copy
    d.buckets_[i] = buckets_[i] - earlier.buckets_[i];
    if (d.buckets_[i] == 0) continue;
    lowest = std::min(lowest, i);
    highest = i;
    d.count_ += d.buckets_[i];
  }
  if (d.count_ == 0) return LatencyHistogram();
  d.sum_ = std::max(0.0, sum_ - earlier.sum_);
  d.min_ = std::clamp(Edge(lowest), min_, max_);
  d.max_ = std::clamp(Edge(highest + 1), min_, max_);
  return d;
}

std::vector<std::pair<uint32_t, uint64_t>> LatencyHistogram::NonEmptyBuckets() const {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (size_t i = 0; i < buckets_.size(); ++i)
    if (buckets_[i] != 0) out.emplace_back(static_cast<uint32_t>(i), buckets_[i]);
  return out;
}

bool LatencyHistogram::FromParts(const std::vector<std::pair<uint32_t, uint64_t>>& buckets, uint64_t count, double min,
                                 double max, double sum, LatencyHistogram* out) {
  if (!std::isfinite(min) || !std::isfinite(max) || !std::isfinite(sum) || min < 0 || max < min || sum < 0)
    return false;
  LatencyHistogram h;
  if (count != 0 || !buckets.empty()) h.buckets_.assign(kBuckets, 0);
  uint64_t total = 0;
  for (const auto& [i, n] : buckets) {
    if (i >= kBuckets || h.buckets_[i] != 0 || n == 0 || total + n < total) return false;
    h.buckets_[i] = n;
    total += n;
  }
  if (total != count) return false;
  h.count_ = count;
  if (count != 0) h.min_ = min, h.max_ = max, h.sum_ = sum;
  *out = std::move(h);
  return true;
}

uint64_t LatencyHistogram::CountAtOrBelow(double seconds) const {
  if (count_ == 0 || !(seconds >= 0)) return 0;
  if (seconds >= max_) return count_;
  uint64_t n = 0;
  // Whole buckets whose upper edge is at or below `seconds`.
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (Edge(i + 1) > seconds) break;
    n += buckets_[i];
  }
  return n;
}

}  // namespace bottleneckd
