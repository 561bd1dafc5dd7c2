#include "collectors/proc_maps.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace bottleneckd {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

// The text of `line` from *pos up to the next `stop` (or the end), moving
// *pos past that separator.
std::string_view TakeUntil(std::string_view line, size_t* pos, char stop) {
  const size_t from = *pos;
  size_t at = line.find(stop, from);
  if (at == std::string_view::npos) at = line.size();
  *pos = at < line.size() ? at + 1 : at;
  return line.substr(from, at - from);
}

// The whole of `field` as a number in `base`; false for an empty field, a
// stray character or a value past T (the kernel prints at most 16 digits).
template <typename T>
bool ParseWhole(std::string_view field, int base, T* out) {
  if (field.empty() || field.size() > 20 || (base == 16 && field.size() > 16)) return false;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), *out, base);
  return ec == std::errc() && ptr == field.data() + field.size();
}

// One line of the map; "" on success, else why it is not one.
const char* ParseLine(std::string_view line, MappedRange* r) {
  size_t pos = 0;
  if (!ParseWhole(TakeUntil(line, &pos, '-'), 16, &r->start)) return "no hexadecimal start address";
  if (!ParseWhole(TakeUntil(line, &pos, ' '), 16, &r->end)) return "no hexadecimal end address";
  std::string_view perms = TakeUntil(line, &pos, ' ');
  if (perms.size() != 4) return "permissions are not 4 letters";
  r->executable = perms[2] == 'x';
  if (!ParseWhole(TakeUntil(line, &pos, ' '), 16, &r->offset)) return "no hexadecimal offset";
  size_t dev_pos = 0;
  std::string_view dev = TakeUntil(line, &pos, ' ');
  if (!ParseWhole(TakeUntil(dev, &dev_pos, ':'), 16, &r->dev_major) ||
      !ParseWhole(dev.substr(dev_pos), 16, &r->dev_minor))
    return "no MAJOR:MINOR device";
  if (!ParseWhole(TakeUntil(line, &pos, ' '), 10, &r->inode)) return "no decimal inode";
  // The path is padded to a column with spaces and may itself hold some.
  std::string_view path = line.substr(std::min(line.find_first_not_of(' ', pos), line.size()));
  if (path.size() > kDeletedSuffix.size() && path.substr(path.size() - kDeletedSuffix.size()) == kDeletedSuffix) {
    path.remove_suffix(kDeletedSuffix.size());
    r->deleted = true;
  }
  r->path.assign(path);
  if (r->start >= r->end) return "start is not below end";
  return "";
}

}  // namespace

Status ProcMaps::Parse(std::string_view text) {
  ranges_.clear();
  std::vector<std::pair<MappedRange, int>> rows;  // with its line number
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    std::string_view line = TakeUntil(text, &pos, '\n');
    ++line_no;
    if (line.empty()) continue;
    MappedRange r;
    if (const char* why = ParseLine(line, &r); *why != '\0')
      return Status::Corruption("maps line " + std::to_string(line_no) + ": " + why);
    rows.emplace_back(std::move(r), line_no);
  }
  // The kernel prints the map in address order; sorting costs little then
  // and keeps Find's promise for text from elsewhere.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
  for (size_t k = 1; k < rows.size(); ++k) {
    if (rows[k].first.start < rows[k - 1].first.end) {
      const int a = rows[k - 1].second, b = rows[k].second;
      return Status::Corruption("maps line " + std::to_string(std::max(a, b)) + ": overlaps the range on line " +
                                std::to_string(std::min(a, b)));
    }
  }
  ranges_.reserve(rows.size());
  for (auto& row : rows) ranges_.push_back(std::move(row.first));
  return Status::OK();
}

const MappedRange* ProcMaps::Find(uint64_t addr) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                             [](uint64_t a, const MappedRange& r) { return a < r.start; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return addr < it->end ? &*it : nullptr;
}

uint64_t FileOffsetOf(const MappedRange& r, uint64_t addr) { return addr - r.start + r.offset; }

}  // namespace bottleneckd
