#include "collectors/kallsyms.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace bottleneckd {
namespace {

bool IsTextType(char t) { return t == 't' || t == 'T' || t == 'w' || t == 'W'; }

// The system call a frame's function is the entry of: "__x64_sys_recvfrom"
// is recvfrom; "" for any other function.
std::string_view SyscallOfFrame(std::string_view fn) {
  for (std::string_view prefix :
       {"__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__riscv_sys_", "__se_sys_", "__do_sys_", "ksys_"}) {
    if (fn.substr(0, prefix.size()) == prefix && fn.size() > prefix.size()) return fn.substr(prefix.size());
  }
  return {};
}

}  // namespace

Status KernelSymbols::Parse(std::string_view text) {
  addrs_.clear();
  name_start_.clear();
  names_.clear();
  sched_begin_ = sched_end_ = lock_begin_ = lock_end_ = 0;
  std::vector<std::pair<uint64_t, uint32_t>> rows;
  bool any_address = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    auto bad = [&](const char* why) {
      addrs_.clear();
      name_start_.clear();
      names_.clear();
      return Status::Corruption("kallsyms line " + std::to_string(line_no) + ": " + why);
    };
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp > 16) return bad("no hexadecimal address");
    uint64_t addr = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + sp, addr, 16);
    if (ec != std::errc() || ptr != line.data() + sp) return bad("no hexadecimal address");
    if (line.size() < sp + 4 || line[sp + 2] != ' ') return bad("no type letter and name");
    const char type = line[sp + 1];
    std::string_view name = line.substr(sp + 3);
    name = name.substr(0, name.find('\t'));  // the module, "\t[e1000]", is not part of the name
    if (name.empty() || name.find(' ') != std::string_view::npos) return bad("no name");
    if (addr != 0) any_address = true;
    if (!IsTextType(type)) continue;
    if (name == "__sched_text_start") sched_begin_ = addr;
    if (name == "__sched_text_end") sched_end_ = addr;
    if (name == "__lock_text_start") lock_begin_ = addr;
    if (name == "__lock_text_end") lock_end_ = addr;
    rows.emplace_back(addr, static_cast<uint32_t>(names_.size()));
    names_.append(name);
    names_.push_back('\0');
  }
  if (!rows.empty() && !any_address) {
    names_.clear();
    return Status::PermissionDenied(
        "kallsyms shows every address as 0 (kernel.kptr_restrict; reading them needs CAP_SYSLOG)");
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  addrs_.reserve(rows.size());
  name_start_.reserve(rows.size());
  for (const auto& [addr, at] : rows) {
    addrs_.push_back(addr);
    name_start_.push_back(at);
  }
  return Status::OK();
}

std::string_view KernelSymbols::Name(uint64_t addr) const {
  auto it = std::upper_bound(addrs_.begin(), addrs_.end(), addr);
  if (it == addrs_.begin()) return {};
  const size_t i = static_cast<size_t>(it - addrs_.begin()) - 1;
  return std::string_view(names_.data() + name_start_[i]);
}

bool KernelSymbols::InSchedFunctions(uint64_t addr) const {
  return (addr >= sched_begin_ && addr < sched_end_) || (addr >= lock_begin_ && addr < lock_end_);
}

std::string WaitSiteOf(const KernelSymbols& symbols, const uint64_t* ips, int n) {
  // The stack at the switch starts in the tracepoint's own frames, then the
  // scheduler's; the wait is the first frame past the scheduler's.
  int first_sched = -1;
  for (int i = 0; i < n; ++i) {
    if (symbols.InSchedFunctions(ips[i])) {
      first_sched = i;
      break;
    }
  }
  std::string_view site;
  int from = 0;
  if (first_sched >= 0) {
    int i = first_sched;
    while (i < n && symbols.InSchedFunctions(ips[i])) ++i;
    if (i < n) site = symbols.Name(ips[i]);
    from = i;
  }
  std::string_view call;
  for (int i = from; i < n && call.empty(); ++i) call = SyscallOfFrame(symbols.Name(ips[i]));
  // The call's own entry frame is not a wait site.
  if (!site.empty() && !SyscallOfFrame(site).empty()) site = {};
  std::string out(site);
  if (!call.empty()) out += out.empty() ? "(" + std::string(call) + ")" : " (" + std::string(call) + ")";
  return out;
}

}  // namespace bottleneckd
