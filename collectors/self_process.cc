#include "collectors/self_process.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/kernel_units.h"
#include "base/parse_util.h"
#include "collectors/pid_stat_fields.h"

namespace bottleneckd {
namespace {

using pid_stat::kRss;
using pid_stat::kStarttime;
using pid_stat::kStime;
using pid_stat::kUtime;
using pid_stat::kVsize;

}  // namespace

Status ParseSelfStat(std::string_view text, SelfStat* out) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return Status::Corruption("process stat without (comm)");
  uint64_t pid = 0;
  std::string_view pid_text = Trim(text.substr(0, open));
  if (!ParseU64(pid_text, &pid) || pid == 0) return Status::Corruption("bad pid '" + std::string(pid_text) + "'");
  std::string_view rest = Trim(text.substr(close + 1));
  SelfStat s;
  uint64_t* fields[] = {&s.utime, &s.stime, nullptr,      nullptr,  nullptr, nullptr,
                        nullptr,  nullptr,  &s.starttime, &s.vsize, &s.rss};
  static_assert(sizeof(fields) / sizeof(fields[0]) == kRss - kUtime + 1);
  size_t i = 0;
  for (std::string_view tok = NextToken(&rest); !tok.empty() && i <= kRss; tok = NextToken(&rest), ++i) {
    if (i < kUtime) continue;
    uint64_t* f = fields[i - kUtime];
    if (f && !ParseU64(tok, f))
      return Status::Corruption("process stat: bad field " + std::to_string(i + 3) + " '" + std::string(tok) + "'");
  }
  if (i <= kRss) return Status::Corruption("process stat: truncated after " + std::to_string(i + 2) + " fields");
  static_assert(kStime == kUtime + 1 && kStarttime == kUtime + 8 && kVsize == kStarttime + 1 && kRss == kVsize + 1);
  *out = s;
  return Status::OK();
}

Status ParseStatBtime(std::string_view text, uint64_t* out) {
  for (std::string_view line; NextLine(&text, &line);) {
    std::string_view key = NextToken(&line);
    if (key != "btime") continue;
    std::string_view v = Trim(line);
    uint64_t b = 0;
    if (!ParseU64(v, &b)) return Status::Corruption("stat: bad btime '" + std::string(v) + "'");
    *out = b;
    return Status::OK();
  }
  return Status::Corruption("stat: no btime line");
}

Status ParseLimitsMaxOpenFiles(std::string_view text, std::optional<uint64_t>* out) {
  constexpr std::string_view kKey = "Max open files";
  for (std::string_view line; NextLine(&text, &line);) {
    if (!StartsWith(line, kKey)) continue;
    line.remove_prefix(kKey.size());
    std::string_view soft = NextToken(&line);
    if (soft == "unlimited") {
      *out = std::nullopt;
      return Status::OK();
    }
    uint64_t v = 0;
    if (!ParseU64(soft, &v)) return Status::Corruption("limits: bad Max open files '" + std::string(soft) + "'");
    *out = v;
    return Status::OK();
  }
  return Status::Corruption("limits: no Max open files line");
}

Status ReadSelfProcess(const HostFs& fs, SelfProcess* out, SelfProcessState* state) {
  std::optional<uint64_t>* btime = &state->btime;
  std::string text;
  SelfStat st;
  BN_RETURN_IF_ERROR(fs.ReadProcKept("self/stat", &state->stat, &text));
  BN_RETURN_IF_ERROR(ParseSelfStat(text, &st));
  if (!btime->has_value()) {
    uint64_t b = 0;
    BN_RETURN_IF_ERROR(fs.ReadProc("stat", &text));
    BN_RETURN_IF_ERROR(ParseStatBtime(text, &b));
    *btime = b;
  }
  const int64_t now = MonotonicNanos();
  if (state->fds_read_ns == 0 || now - state->fds_read_ns >= SelfProcessState::kFdsEveryNanos) {
    std::optional<uint64_t> max_fds;
    BN_RETURN_IF_ERROR(fs.ReadProcKept("self/limits", &state->limits, &text));
    BN_RETURN_IF_ERROR(ParseLimitsMaxOpenFiles(text, &max_fds));
    std::vector<std::string> fds;
    BN_RETURN_IF_ERROR(fs.ListProc("self/fd", &fds));
    state->open_fds = fds.size();
    state->max_fds = max_fds;
    state->fds_read_ns = now;
  }
  const long page = ::sysconf(_SC_PAGESIZE);
  SelfProcess p;
  p.cpu_seconds = TicksToSeconds(st.utime + st.stime);
  p.resident_bytes = st.rss * static_cast<uint64_t>(page > 0 ? page : 4096);
  p.virtual_bytes = st.vsize;
  p.open_fds = state->open_fds;
  p.max_fds = state->max_fds;
  p.start_time_seconds = static_cast<double>(**btime) + TicksToSeconds(st.starttime);
  *out = p;
  return Status::OK();
}

}  // namespace bottleneckd
