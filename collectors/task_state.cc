#include "collectors/task_state.h"

#include <seccomp.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "base/parse_util.h"

namespace bottleneckd {

Status ParseTaskSchedstat(std::string_view text, TaskSchedstat* out) {
  std::string_view rest = Trim(text);
  TaskSchedstat s;
  uint64_t* fields[] = {&s.run_ns, &s.wait_ns, &s.timeslices};
  for (uint64_t* f : fields) {
    std::string_view tok = NextToken(&rest);
    if (!ParseU64(tok, f)) return Status::Corruption("schedstat: bad field '" + std::string(tok) + "'");
  }
  if (!Trim(rest).empty()) return Status::Corruption("schedstat: more than three fields");
  *out = s;
  return Status::OK();
}

Status ParseTaskStatusSwitches(std::string_view text, TaskSwitches* out) {
  std::optional<uint64_t> voluntary, involuntary;
  std::string_view line;
  while (NextLine(&text, &line)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = Trim(line.substr(colon + 1));
    std::optional<uint64_t>* slot = key == "voluntary_ctxt_switches"      ? &voluntary
                                    : key == "nonvoluntary_ctxt_switches" ? &involuntary
                                                                          : nullptr;
    if (!slot) continue;
    *slot = ToU64(value);
    if (!*slot) return Status::Corruption("status: bad " + std::string(key) + " '" + std::string(value) + "'");
  }
  if (!voluntary || !involuntary) return Status::Corruption("status: no ctxt_switches lines");
  *out = {*voluntary, *involuntary};
  return Status::OK();
}

std::string ParseTaskWchan(std::string_view text) {
  std::string_view w = Trim(text);
  return w == "0" ? std::string() : std::string(w);
}

Status ParseTaskSyscall(std::string_view text, std::optional<int64_t>* out, std::vector<uint64_t>* args) {
  std::string_view rest = Trim(text);
  std::string_view nr = NextToken(&rest);
  if (args) args->clear();
  if (nr == "running") {
    *out = std::nullopt;
    return Status::OK();
  }
  int64_t v = 0;
  if (!ParseI64(nr, &v) || v < -1) return Status::Corruption("syscall: bad number '" + std::string(nr) + "'");
  *out = v;
  // "NR ARG1 ... ARG6 SP PC" in a call; "-1 SP PC" outside one.
  if (args && v >= 0) {
    for (int i = 0; i < 6; ++i) {
      std::string_view tok = NextToken(&rest);
      uint64_t a = 0;
      if (tok.substr(0, 2) != "0x" || !ParseHexU64(tok.substr(2), &a)) {
        args->clear();
        return Status::Corruption("syscall: bad argument '" + std::string(tok) + "'");
      }
      args->push_back(a);
    }
  }
  return Status::OK();
}

std::string SyscallName(int64_t nr) {
  if (nr == -1) return "none";
  // libseccomp's resolver allocates the name; a number it does not know is NULL.
  std::unique_ptr<char, decltype(&std::free)> name(
      nr >= 0 && nr <= INT32_MAX ? seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(nr)) : nullptr,
      &std::free);
  return name ? std::string(name.get()) : "syscall " + std::to_string(nr);
}

}  // namespace bottleneckd
