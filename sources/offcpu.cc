// offcpu's loader and reader (sources/offcpu.h): the libbpf skeleton of
// sources/bpf/offcpu.bpf.c, built and embedded at build time.
#include "sources/offcpu.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "base/clock.h"
#include "base/state_file.h"
#include "collectors/kallsyms.h"
#include "sources/bpf/offcpu.skel.h"
#include "sources/bpf/offcpu_maps.h"
#include "sources/bpf_load.h"
#include "sources/profile_fold.h"
#include "sources/profile_symbols.h"
#include "sources/sample.h"

namespace bottleneckd {
namespace {

static_assert(kOffCpuWakerSlots == OFFCPU_WAKER_SLOTS);

constexpr const char* kKernelBtf = "/sys/kernel/btf/vmlinux";
constexpr const char* kKallsyms = "/proc/kallsyms";
// /proc/kallsyms is 4-6 MiB on a distribution kernel with modules.
constexpr size_t kMaxKallsymsBytes = 64u << 20;

Status LoadError(std::string_view what, int err, const std::string& libbpf_text) {
  return BpfLoadError(what, err, libbpf_text, "sched/sched_switch");
}

// "Name:\tudpwork\n...Tgid:\t4242\n" (/proc/TID/status): the thread's name and
// its process; an empty waker for a thread that has exited.
OffCpuWaker ReadWaker(int tid) {
  OffCpuWaker w;
  w.tid = tid;
  std::string text;
  if (!ReadStateFile("/proc/" + std::to_string(tid) + "/status", 16 << 10, &text).ok()) return w;
  auto field = [&](std::string_view key) -> std::string_view {
    size_t at = text.find(key);
    if (at != 0 && (at == std::string::npos || text[at - 1] != '\n')) return {};
    std::string_view v(text);
    v.remove_prefix(at + key.size());
    v = v.substr(0, v.find('\n'));
    while (!v.empty() && (v.front() == '\t' || v.front() == ' ')) v.remove_prefix(1);
    return v;
  };
  w.name = std::string(field("Name:"));
  std::string_view tgid = field("Tgid:");
  std::from_chars(tgid.data(), tgid.data() + tgid.size(), w.pid);
  return w;
}

// Wakers' names are read once and kept this long (a tid is reused only after
// the kernel's pid space wraps); at most this many are kept.
constexpr int64_t kWakerNameNs = 60'000'000'000;
constexpr size_t kMaxWakerNames = 4096;
// Folded stacks kept named, at most: up to 64 frames of 40 bytes, 2.5 KiB
// a stack at worst (10 MiB); past it they are named again as they come.
constexpr size_t kMaxStackTexts = 4096;

}  // namespace

struct OffCpuSource::Bpf {
  offcpu_bpf* skel = nullptr;
  uint64_t generation = 0;
  int cpus = 0;
  Symbolizer symbols;
  std::unordered_map<int32_t, std::string> site_of_stack;  // stack id -> WaitSiteOf
  // (pid, kernel stack id, user stack id) -> the folded frames (StackText).
  std::map<std::tuple<int, int32_t, int32_t>, std::string> stack_text;
  std::map<int, int> pid_of;        // followed tid -> its process
  std::map<int, uint32_t> targets;  // tid -> its stack_threshold (offcpu_target)
  // Each followed thread's periods (all sites) at the last Read, for its rate.
  std::map<int, uint64_t> last_periods;
  int64_t last_read_ns = 0;
  std::vector<offcpu_drops> drop_values;
  // Wakers' names (ReadWaker) and when each was read.
  std::map<int, std::pair<OffCpuWaker, int64_t>> waker_names;
  const OffCpuWaker& Waker(int tid, int64_t now) {
    auto it = waker_names.find(tid);
    if (it != waker_names.end() && now - it->second.second < kWakerNameNs) return it->second.first;
    if (it == waker_names.end() && waker_names.size() >= kMaxWakerNames) waker_names.clear();
    auto& slot = waker_names[tid];
    slot = {ReadWaker(tid), now};
    return slot.first;
  }
  ~Bpf() {
    if (skel != nullptr) offcpu_bpf::destroy(skel);
  }
  // The stack's wait site, named once per stack id (a stack id is never
  // reused while the program is loaded: the map is not written with
  // BPF_F_REUSE_STACKID).
  const std::string& Site(int32_t stack_id) {
    auto [it, fresh] = site_of_stack.try_emplace(stack_id);
    if (!fresh || stack_id < 0) return it->second;  // "" for an unsampled or unkept stack
    uint64_t ips[OFFCPU_STACK_DEPTH] = {};
    if (int n = Ips(skel->maps.stacks, stack_id, ips); n > 0) it->second = WaitSiteOf(symbols.kernel(), ips, n);
    return it->second;
  }
  // The stack's addresses in `map`, innermost first: how many (0 when not kept).
  int Ips(const bpf_map* map, int32_t stack_id, uint64_t (&ips)[OFFCPU_STACK_DEPTH]) {
    if (stack_id < 0 || bpf_map__lookup_elem(map, &stack_id, sizeof stack_id, ips, sizeof ips, 0) != 0) return 0;
    int n = 0;
    while (n < OFFCPU_STACK_DEPTH && ips[n] != 0) ++n;
    return n;
  }
  // The user then kernel frames of a period's stacks, folded, named once per
  // (process, stacks): a stack id is the same addresses in any process,
  // named by each process's own maps.
  const std::string& StackText(int tid, int32_t kernel_id, int32_t user_id) {
    auto p = pid_of.find(tid);
    const int pid = p != pid_of.end() ? p->second : tid;
    if (stack_text.size() >= kMaxStackTexts) stack_text.clear();  // named again as they come
    auto [it, fresh] = stack_text.try_emplace({pid, kernel_id, user_id});
    if (!fresh || kernel_id < 0) return it->second;
    std::vector<std::string> frames;
    uint64_t ips[OFFCPU_STACK_DEPTH] = {};
    if (int n = Ips(skel->maps.user_stacks, user_id, ips); n > 0)
      symbols.AppendUser(pid, ips, n, &frames);
    else if (user_id == -EEXIST)
      frames.push_back("[user stack not kept]");  // its bucket in the user map held another stack
    if (int n = Ips(skel->maps.stacks, kernel_id, ips); n > 0) {
      // The walk starts in the tracepoint's program: the frames innermost of
      // the switch (__schedule) are the tracer's, not the thread's.
      int from = 0;
      for (int i = 0; i < std::min(n, 8); ++i)
        if (symbols.kernel().Name(ips[i]) == "__schedule") from = i;
      symbols.AppendKernel(ips + from, n - from, &frames);
    }
    it->second = FoldedFrames(frames);
    return it->second;
  }
};

OffCpuSource::OffCpuSource(std::string kallsyms_path, std::string btf_path)
    : kallsyms_path_(std::move(kallsyms_path)), btf_path_(std::move(btf_path)) {
  InstallLibbpfPrint();
}

OffCpuSource::~OffCpuSource() { Stop(); }

bool OffCpuSource::running() const { return bpf_ != nullptr; }

Status OffCpuSource::Start() {
  if (bpf_) return Status::OK();
  BN_RETURN_IF_ERROR(CheckBpfPrivileges());
  const std::string btf = btf_path_.empty() ? kKernelBtf : btf_path_;
  if (access(btf.c_str(), R_OK) != 0)
    return Status::NotSupported("no kernel BTF at " + btf +
                                " (CONFIG_DEBUG_INFO_BTF): the switch's next task cannot be read");
  auto b = std::make_unique<Bpf>();
  std::string text;
  const std::string kallsyms = kallsyms_path_.empty() ? kKallsyms : kallsyms_path_;
  BN_RETURN_IF_ERROR(ReadStateFile(kallsyms, kMaxKallsymsBytes, &text));
  BN_RETURN_IF_ERROR(b->symbols.kernel().Parse(text).WithContext(kallsyms));
  {
    std::string log;
    CaptureLibbpf capture(&log);
    LIBBPF_OPTS(bpf_object_open_opts, opts);
    if (!btf_path_.empty()) opts.btf_custom_path = btf_path_.c_str();
    b->skel = offcpu_bpf::open(&opts);
    if (b->skel == nullptr) return LoadError("opening the BPF object", errno, log);
    if (int err = offcpu_bpf::load(b->skel); err != 0) return LoadError("loading the BPF program", err, log);
    if (int err = offcpu_bpf::attach(b->skel); err != 0) return LoadError("attaching to sched_switch", err, log);
  }
  b->cpus = libbpf_num_possible_cpus();
  if (b->cpus <= 0) return Status::FromErrno(-b->cpus, "counting possible CPUs");
  b->drop_values.resize(b->cpus);
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (bpf_obj_get_info_by_fd(bpf_program__fd(b->skel->progs.on_switch), &info, &len) == 0) b->generation = info.id;
  bpf_ = std::move(b);
  return Status::OK();
}

void OffCpuSource::Stop() { bpf_.reset(); }

Status OffCpuSource::SetTargets(const std::vector<int>& tids, const std::map<int, int>& pids) {
  if (!bpf_) return Status::NotSupported("offcpu is not loaded");
  Bpf& b = *bpf_;
  b.pid_of = pids;
  std::set<int> want(tids.begin(), tids.end());
  for (auto it = b.targets.begin(); it != b.targets.end();) {
    if (want.count(it->first)) {
      ++it;
      continue;
    }
    const uint32_t k = static_cast<uint32_t>(it->first);
    bpf_map__delete_elem(b.skel->maps.targets, &k, sizeof k, 0);
    bpf_map__delete_elem(b.skel->maps.starts, &k, sizeof k, 0);  // a period it will never end
    bpf_map__delete_elem(b.skel->maps.waker_slots, &k, sizeof k, 0);
    b.last_periods.erase(it->first);
    it = b.targets.erase(it);
  }
  for (int tid : want) {
    if (b.targets.count(tid)) continue;
    if (static_cast<int>(b.targets.size()) >= OFFCPU_MAX_TARGETS) break;
    const uint32_t k = static_cast<uint32_t>(tid);
    const offcpu_target t{0xffffffffu};  // every stack until its rate is known
    const offcpu_wakers free_slots{};
    // The slots first: a thread followed without them has every waker "other".
    if (bpf_map__update_elem(b.skel->maps.waker_slots, &k, sizeof k, &free_slots, sizeof free_slots, BPF_ANY) != 0 ||
        bpf_map__update_elem(b.skel->maps.targets, &k, sizeof k, &t, sizeof t, BPF_ANY) != 0)
      return Status::FromErrno(errno, "following thread " + std::to_string(tid));
    b.targets[tid] = t.stack_threshold;
  }
  return Status::OK();
}

Status OffCpuSource::Read(OffCpuReading* out) {
  if (!bpf_) return Status::NotSupported("offcpu is not loaded");
  Bpf& b = *bpf_;
  out->mono_ns = MonotonicNanos();
  out->generation = b.generation;
  out->tids.clear();
  for (const auto& [tid, threshold] : b.targets) out->tids.push_back(tid);
  std::map<std::tuple<int, bool, bool, std::string, std::string, int, bool>, OffCpuSite> sites;
  // The totals of threads no longer followed: deleted after the walk (a
  // hash map's walk restarts at a deleted key), so a daemon following
  // short-lived threads does not fill the map with the dead's sites.
  std::vector<offcpu_key> unfollowed;
  // The followed threads' totals as the maps hold them, named below: the
  // walks are thinned (AdjustStackSampling) before the naming, which reads
  // a binary's symbols the first time one of its stacks is seen (a second
  // for a large one): the walks of that time went on at the old rate.
  std::vector<std::pair<offcpu_key, offcpu_value>> raw;
  std::map<int, uint64_t> periods;  // each followed thread's, all sites
  auto add = [&](uint32_t tid, int32_t stack_id, int32_t user_id, bool involuntary, uint32_t waker_key, uint64_t ns,
                 uint64_t count) {
    const bool sampled = stack_id != OFFCPU_UNSAMPLED;
    const std::string& where = b.Site(stack_id);
    const std::string& stack = b.StackText(static_cast<int>(tid), stack_id, user_id);
    const bool softirq = waker_key != OFFCPU_NO_WAKER && (waker_key & OFFCPU_WAKER_SOFTIRQ) != 0;
    const int waker = waker_key == OFFCPU_NO_WAKER      ? kNoWaker
                      : waker_key == OFFCPU_OTHER_WAKER ? kOtherWaker
                                                        : static_cast<int>(waker_key & ~OFFCPU_WAKER_SOFTIRQ);
    OffCpuSite& s = sites[{static_cast<int>(tid), involuntary, sampled, where, stack, waker, softirq}];
    s.tid = static_cast<int>(tid);
    s.where = where;
    s.stack = stack;
    s.involuntary = involuntary;
    s.sampled = sampled;
    s.waker = waker;
    s.waker_softirq = softirq;
    s.ns += ns;
    s.count += count;
  };
  offcpu_key key{}, next{};
  const offcpu_key* prev = nullptr;
  for (int n = 0; n < OFFCPU_MAX_SITES && bpf_map__get_next_key(b.skel->maps.totals, prev, &next, sizeof next) == 0;
       ++n) {
    key = next;
    prev = &key;
    offcpu_value v{};
    // Only this reader deletes totals, after the walk: a key is there.
    if (bpf_map__lookup_elem(b.skel->maps.totals, &key, sizeof key, &v, sizeof v, 0) != 0)
      return Status::FromErrno(errno, "reading the offcpu totals map");
    if (!b.targets.count(static_cast<int>(key.tid))) {
      unfollowed.push_back(key);
      continue;
    }
    raw.emplace_back(key, v);
    periods[static_cast<int>(key.tid)] += v.count;
  }
  for (const offcpu_key& k : unfollowed) bpf_map__delete_elem(b.skel->maps.totals, &k, sizeof k, 0);
  AdjustStackSampling(periods, out->mono_ns);
  for (const auto& [k, v] : raw) add(k.tid, k.stack_id, k.user_stack_id, k.involuntary != 0, k.waker, v.ns, v.count);
  // A thread off the CPU now: its period so far counts at its site, so a
  // window holds the time spent in it, not whole periods ended in it (the
  // next read's total replaces this part when the period ends).
  for (const auto& [tid, threshold] : b.targets) {
    const uint32_t k = static_cast<uint32_t>(tid);
    offcpu_start s{};
    if (bpf_map__lookup_elem(b.skel->maps.starts, &k, sizeof k, &s, sizeof s, 0) != 0) continue;
    const uint64_t now = static_cast<uint64_t>(out->mono_ns);
    // Its waker, if one was seen, ends it in the next read: not yet.
    if (now > s.ns) add(k, s.stack_id, s.user_stack_id, s.involuntary != 0, OFFCPU_NO_WAKER, now - s.ns, 0);
  }
  out->sites.clear();
  out->wakers.clear();
  std::set<int> wakers;
  for (auto& [k, s] : sites) {
    if (s.waker > 0) wakers.insert(s.waker);
    out->sites.push_back(std::move(s));
  }
  for (int tid : wakers) out->wakers.push_back(b.Waker(tid, out->mono_ns));
  b.symbols.ForgetExited();  // a process gone: its pid may come back as another's
  const uint32_t zero = 0;
  out->dropped = 0;
  if (bpf_map__lookup_elem(b.skel->maps.drops, &zero, sizeof zero, b.drop_values.data(),
                           b.drop_values.size() * sizeof(offcpu_drops), 0) == 0)
    for (const offcpu_drops& d : b.drop_values) out->dropped += d.no_site + d.no_start;
  return Status::OK();
}

void OffCpuSource::AdjustStackSampling(std::map<int, uint64_t> periods, int64_t mono_ns) {
  Bpf& b = *bpf_;
  const double seconds = static_cast<double>(mono_ns - b.last_read_ns) / 1e9;
  for (auto& [tid, threshold] : b.targets) {
    const uint64_t now = periods[tid];  // 0 for a thread with no period yet: its rate counts from here
    auto last = b.last_periods.find(tid);
    if (last == b.last_periods.end() || seconds <= 0 || now < last->second) continue;
    const double rate = static_cast<double>(now - last->second) / seconds;
    const uint32_t want = rate <= kOffCpuStacksPerSecond
                              ? 0xffffffffu
                              : static_cast<uint32_t>(4294967295.0 * kOffCpuStacksPerSecond / rate);
    if (want == threshold) continue;
    const uint32_t k = static_cast<uint32_t>(tid);
    const offcpu_target t{want};
    if (bpf_map__update_elem(b.skel->maps.targets, &k, sizeof k, &t, sizeof t, BPF_EXIST) == 0) threshold = want;
  }
  b.last_periods = std::move(periods);
  b.last_read_ns = mono_ns;
}

Status OffCpuSource::Read(Sample* out) {
  if (!bpf_) {
    out->offcpu.reset();
    return Status::NotSupported("offcpu is not loaded");
  }
  std::vector<int> tids;
  std::map<int, int> pids;
  if (out->threads)
    for (const ThreadSample& t : *out->threads) tids.push_back(t.task.tid), pids[t.task.tid] = t.pid;
  OffCpuReading r;
  Status s = SetTargets(tids, pids);
  if (s.ok()) s = Read(&r);
  if (s.ok()) {
    out->offcpu = std::move(r);
  } else {
    out->offcpu.reset();
  }
  return s;
}

}  // namespace bottleneckd
