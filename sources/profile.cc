// The profiler's loader and reader (sources/profile.h): the libbpf skeleton
// of sources/bpf/profile.bpf.c, built and embedded at build time, and one
// perf event per CPU that runs it.
#include "sources/profile.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "base/clock.h"
#include "base/state_file.h"
#include "base/unique_fd.h"
#include "sources/bpf/profile.skel.h"
#include "sources/bpf/profile_maps.h"
#include "sources/bpf_load.h"
#include "sources/profile_symbols.h"
#include "sources/sample.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

constexpr const char* kKallsyms = "/proc/kallsyms";
constexpr size_t kMaxKallsymsBytes = 64u << 20;

Status LoadError(std::string_view what, int err, const std::string& libbpf_text) {
  return BpfLoadError(what, err, libbpf_text, "perf_event (CPU clock)");
}

// A CPU-clock sampling event on one CPU, for every task: the kernel's
// software timer, so it works in a VM without a PMU. Its count is
// nanoseconds, so a fixed period of 1 s / hz is exactly hz samples a second;
// the frequency mode (sample_freq) re-tunes the period as it goes and took
// 80 samples a CPU-second at 49 Hz on this VM (bench/profile_overhead.sh).
int OpenCpuClock(int cpu, int hz) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1000000000ull / static_cast<uint64_t>(hz);
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace

struct ProfileSource::Bpf {
  profile_bpf* skel = nullptr;
  std::vector<bpf_link*> links;
  std::vector<UniqueFd> events;
  uint64_t generation = 0;
  int cpus = 0;        // possible CPUs
  int max_stacks = 0;  // the stack map's slots
  int64_t last_read_ns = 0;
  uint32_t self_pid = static_cast<uint32_t>(getpid());
  Symbolizer symbols;
  std::set<int32_t> stack_ids;  // stack ids read this Read, deleted before its naming
  std::set<int> walk_cpus;
  std::set<int> walk_tids;
  uint64_t stack_lost = 0;
  std::vector<profile_drops> drop_values;
  std::map<int, ProfileCpu> cpu_totals;  // since the load
  ~Bpf() {
    for (bpf_link* l : links) bpf_link__destroy(l);
    if (skel != nullptr) profile_bpf::destroy(skel);
  }
  // The stack's frames (innermost first); false when the map has no such id.
  bool Stack(int32_t id, std::unordered_map<int32_t, std::vector<uint64_t>>* cache, std::vector<uint64_t>** out) {
    auto [it, fresh] = cache->try_emplace(id);
    *out = &it->second;
    if (!fresh) return !it->second.empty();
    uint64_t ips[PROFILE_STACK_DEPTH] = {};
    if (bpf_map__lookup_elem(skel->maps.stacks, &id, sizeof id, ips, sizeof ips, 0) != 0) return false;
    int n = 0;
    while (n < PROFILE_STACK_DEPTH && ips[n] != 0) ++n;
    it->second.assign(ips, ips + n);
    stack_ids.insert(id);
    return n > 0;
  }
};

ProfileSource::ProfileSource(ProfileOptions options, std::string kallsyms_path)
    : options_(options), kallsyms_path_(std::move(kallsyms_path)) {
  InstallLibbpfPrint();
}

ProfileSource::~ProfileSource() { Stop(); }

bool ProfileSource::running() const { return bpf_ != nullptr; }

Status ProfileSource::Start() {
  if (bpf_) return Status::OK();
  if (options_.frequency_hz < 1 || options_.frequency_hz > kProfileMaxFrequencyHz)
    return Status::InvalidArgument("profile frequency must be 1.." + std::to_string(kProfileMaxFrequencyHz) + " Hz");
  BN_RETURN_IF_ERROR(CheckBpfPrivileges());
  auto b = std::make_unique<Bpf>();
  std::string text;
  const std::string kallsyms = kallsyms_path_.empty() ? kKallsyms : kallsyms_path_;
  BN_RETURN_IF_ERROR(ReadStateFile(kallsyms, kMaxKallsymsBytes, &text));
  BN_RETURN_IF_ERROR(b->symbols.kernel().Parse(text).WithContext(kallsyms));
  {
    std::string log;
    CaptureLibbpf capture(&log);
    b->cpus = libbpf_num_possible_cpus();
    if (b->cpus <= 0) return Status::FromErrno(-b->cpus, "counting possible CPUs");
    b->skel = profile_bpf::open();
    if (b->skel == nullptr) return LoadError("opening the BPF object", errno, log);
    b->max_stacks = std::clamp(b->cpus * PROFILE_STACKS_PER_CPU, PROFILE_MIN_STACKS, PROFILE_MAX_STACKS);
    if (int err = bpf_map__set_max_entries(b->skel->maps.stacks, static_cast<uint32_t>(b->max_stacks)); err != 0)
      return LoadError("sizing the stack map", -err, log);
    if (int err = profile_bpf::load(b->skel); err != 0) return LoadError("loading the BPF program", err, log);
    for (int cpu = 0; cpu < b->cpus && cpu < PROFILE_MAX_CPUS; ++cpu) {
      int fd = OpenCpuClock(cpu, options_.frequency_hz);
      if (fd < 0) {
        if (errno == ENODEV) continue;  // a possible CPU that is offline
        const int err = errno;
        return err == EACCES || err == EPERM
                   ? Status::PermissionDenied("opening a CPU-clock perf event on cpu" + std::to_string(cpu) + ": " +
                                              std::strerror(err))
                   : Status::FromErrno(err, "opening a CPU-clock perf event on cpu" + std::to_string(cpu));
      }
      b->events.emplace_back(fd);
      bpf_link* link = bpf_program__attach_perf_event(b->skel->progs.on_sample, fd);
      if (link == nullptr) return LoadError("attaching to the CPU-clock event", errno, log);
      b->links.push_back(link);
    }
    if (b->links.empty()) return Status::NotSupported("no online CPU took a CPU-clock perf event");
  }
  b->drop_values.resize(b->cpus);
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (bpf_obj_get_info_by_fd(bpf_program__fd(b->skel->progs.on_sample), &info, &len) == 0) b->generation = info.id;
  b->last_read_ns = MonotonicNanos();
  bpf_ = std::move(b);
  return SetWalk({}, {}, options_.stacks == ProfileStacks::kAll);
}

void ProfileSource::Stop() { bpf_.reset(); }

Status ProfileSource::SetWalk(const std::vector<int>& cpus, const std::vector<int>& tids, bool all) {
  if (!bpf_) return Status::NotSupported("profile is not loaded");
  Bpf& b = *bpf_;
  b.skel->bss->walk_all = all || options_.stacks == ProfileStacks::kAll ? 1 : 0;
  const std::set<int> want_cpus(cpus.begin(), cpus.end());
  for (int cpu = 0; cpu < b.cpus && cpu < PROFILE_MAX_CPUS; ++cpu) {
    const bool want = want_cpus.count(cpu) > 0;
    if (want == (b.walk_cpus.count(cpu) > 0)) continue;
    const uint32_t k = static_cast<uint32_t>(cpu), v = want ? 1 : 0;
    if (bpf_map__update_elem(b.skel->maps.walk_cpus, &k, sizeof k, &v, sizeof v, BPF_ANY) != 0)
      return Status::FromErrno(errno, "walking cpu" + std::to_string(cpu));
    if (want) {
      b.walk_cpus.insert(cpu);
    } else {
      b.walk_cpus.erase(cpu);
    }
  }
  const std::set<int> want_tids(tids.begin(), tids.end());
  for (auto it = b.walk_tids.begin(); it != b.walk_tids.end();) {
    if (want_tids.count(*it)) {
      ++it;
      continue;
    }
    const uint32_t k = static_cast<uint32_t>(*it);
    bpf_map__delete_elem(b.skel->maps.walk_tids, &k, sizeof k, 0);
    it = b.walk_tids.erase(it);
  }
  for (int tid : want_tids) {
    if (b.walk_tids.count(tid) || b.walk_tids.size() >= PROFILE_MAX_TIDS) continue;
    const uint32_t k = static_cast<uint32_t>(tid), v = 1;
    if (bpf_map__update_elem(b.skel->maps.walk_tids, &k, sizeof k, &v, sizeof v, BPF_ANY) != 0)
      return Status::FromErrno(errno, "walking thread " + std::to_string(tid));
    b.walk_tids.insert(tid);
  }
  return Status::OK();
}

Status ProfileSource::Read(ProfileReading* out) {
  if (!bpf_) return Status::NotSupported("profile is not loaded");
  Bpf& b = *bpf_;
  // Samples taken from here on carry the new epoch and stay for the next
  // Read; those of earlier epochs are this Read's (one taken on another CPU
  // as the epoch turns lands in either, and is counted once).
  const uint32_t epoch = __atomic_add_fetch(&b.skel->bss->epoch, 1, __ATOMIC_SEQ_CST);
  out->mono_ns = MonotonicNanos();
  out->since_ns = b.last_read_ns;
  b.last_read_ns = out->mono_ns;
  out->generation = b.generation;
  out->frequency_hz = options_.frequency_hz;

  std::vector<profile_key> keys;
  profile_key key{}, next{};
  const profile_key* prev = nullptr;
  for (int n = 0; n < PROFILE_MAX_KEYS && bpf_map__get_next_key(b.skel->maps.counts, prev, &next, sizeof next) == 0;
       ++n) {
    key = next;
    prev = &key;
    if (key.epoch != epoch) keys.push_back(key);
  }
  std::map<int, ProfileCpu> cpus;
  std::map<std::tuple<int, int, int, std::string, ProfileFrames>, uint64_t> merged;
  std::unordered_map<int32_t, std::vector<uint64_t>> stacks;
  // The stacks copied out and deleted before any frame is named: a sample
  // of the new epoch whose stack matches one read here shares its id, and
  // loses it to the deletion unless the same stack is walked again after.
  // Deleted after the naming (which reads a binary's symbols the first time
  // one of its stacks is seen), a program that ended during it lost its
  // last samples (integration.profile_test in a fresh-clone CI of af16569:
  // 21 of its 54 samples [lost], 0.43 s at 49 Hz).
  std::vector<uint64_t>* ips = nullptr;
  for (const profile_key& k : keys)
    for (int32_t id : {k.ustack, k.kstack})
      if (id >= 0) b.Stack(id, &stacks, &ips);
  for (int32_t id : b.stack_ids) bpf_map__delete_elem(b.skel->maps.stacks, &id, sizeof id, 0);
  b.stack_ids.clear();
  if (before_naming_) before_naming_();
  for (const profile_key& k : keys) {
    uint64_t count = 0;
    if (bpf_map__lookup_and_delete_elem(b.skel->maps.counts, &k, sizeof k, &count, sizeof count, 0) != 0) {
      // Kernels before 5.14 cannot take a hash map's element and delete it at once.
      if (bpf_map__lookup_elem(b.skel->maps.counts, &k, sizeof k, &count, sizeof count, 0) != 0) continue;
      bpf_map__delete_elem(b.skel->maps.counts, &k, sizeof k, 0);
    }
    ProfileCpu& c = cpus[static_cast<int>(k.cpu)];
    c.cpu = static_cast<int>(k.cpu);
    c.samples += count;
    // The soaker's threads (this process's) run only in time the CPU
    // would otherwise idle: their samples are idle, not load.
    if (k.tid == 0 || (k.pid == b.self_pid && std::strncmp(k.comm, kSoakerThreadName, sizeof k.comm) == 0)) {
      c.idle += count;
      continue;
    }
    if (k.kstack == PROFILE_NOT_WALKED) continue;
    ProfileFrames frames;
    bool lost = false;
    if (k.ustack >= 0 && b.Stack(k.ustack, &stacks, &ips)) {
      b.symbols.AppendUser(static_cast<int>(k.pid), ips->data(), static_cast<int>(ips->size()), &frames);
    } else if (k.ustack != -EFAULT) {  // -EFAULT: a kernel thread has no user stack
      lost = true;
    }
    if (k.kstack >= 0 && b.Stack(k.kstack, &stacks, &ips)) {
      b.symbols.AppendKernel(ips->data(), static_cast<int>(ips->size()), &frames);
    } else if (k.kstack != -EFAULT) {
      lost = true;
    }
    if (lost) {
      b.stack_lost += count;
      frames.insert(frames.begin(), "[lost]");
    }
    const std::string comm(k.comm, strnlen(k.comm, sizeof k.comm));
    merged[{static_cast<int>(k.pid), static_cast<int>(k.tid), static_cast<int>(k.cpu), comm, std::move(frames)}] +=
        count;
  }
  out->stacks.clear();
  for (auto& [k, n] : merged)
    out->stacks.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k), n});
  std::stable_sort(out->stacks.begin(), out->stacks.end(),
                   [](const ProfileStack& x, const ProfileStack& y) { return x.samples > y.samples; });
  out->cpus.clear();
  for (auto& [cpu, c] : cpus) {
    out->cpus.push_back(c);
    ProfileCpu& t = b.cpu_totals[cpu];
    t.cpu = cpu;
    t.samples += c.samples;
    t.idle += c.idle;
  }
  out->cpu_totals.clear();
  for (const auto& [cpu, t] : b.cpu_totals) out->cpu_totals.push_back(t);
  // The stack map is a hash without chaining: a new stack whose slot is
  // taken is refused (-EEXIST, drawn as [lost]), so its fill is its loss
  // rate. Emptied every Read (above) it holds one tick's stacks: the echo
  // lab's cpu run lost 6 % of its stacks when it was emptied only once half
  // full, none this way.
  b.symbols.ForgetExited();
  const uint32_t zero = 0;
  out->dropped = 0;
  if (bpf_map__lookup_elem(b.skel->maps.drops, &zero, sizeof zero, b.drop_values.data(),
                           b.drop_values.size() * sizeof(profile_drops), 0) == 0)
    for (const profile_drops& d : b.drop_values) out->dropped += d.no_slot;
  out->stack_lost = b.stack_lost;
  return Status::OK();
}

size_t ProfileSource::cache_bytes() const { return bpf_ ? bpf_->symbols.bytes() : 0; }

Status ProfileSource::Read(Sample* out) {
  if (!bpf_) {
    out->profile.reset();
    return Status::NotSupported("profile is not loaded");
  }
  ProfileReading r;
  Status s = Read(&r);
  if (s.ok()) {
    out->profile = std::move(r);
  } else {
    out->profile.reset();
  }
  return s;
}

}  // namespace bottleneckd
