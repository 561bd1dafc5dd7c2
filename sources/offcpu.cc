// offcpu's loader and reader (sources/offcpu.h): the libbpf skeleton of
// sources/bpf/offcpu.bpf.c, built and embedded at build time.
#include "sources/offcpu.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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
// Distinct named stacks (by thread, site and waker) kept in the folded
// totals, at most; a stack first named past it is "[other stacks]" (up to
// 64 frames of 40 bytes, 2.5 KiB a stack at worst: 40 MiB).
constexpr size_t kMaxFoldedSites = 16384;

}  // namespace

// Epochs (sources/bpf/offcpu_maps.h): the program walks each period's
// stacks into the pair of stack maps of its epoch and keys its totals with
// that epoch. The reader turns the epoch when the pair in use fills (an
// eighth of either map: a stack map refuses a new stack whose bucket is
// taken), `totals` does (a quarter), or the epoch's walks are refused
// (TurnEpoch), and at the next Read, when no switch away
// can still be walking into the old pair, retires the old epoch: it names
// the old pair's stacks still needed (the old epoch's keys, and its periods
// under way: a thread asleep across the turn), empties the pair, and folds
// each old key no period under way will add to into its own named totals,
// deleting it from `totals`. The named totals only grow, as the map's did:
// a window's differences do not see the turn. A binary without frame
// pointers walks into garbage, a new user stack nearly every period (the
// echo lab's python3 peer: ~1000 a second, its map full within seconds
// before epochs); such stacks are named up to the first frame in no mapping
// (sources/profile_symbols.h), so the folded totals stay as few as the
// distinct stacks named.
namespace {
// (tid, involuntary, sampled, where, stack, waker, waker_softirq): a site as
// OffCpuReading keeps it.
// (tid, involuntary, sampled, where, stack, waker, waker_softirq), the
// texts interned (Bpf::Intern): compared by address, copied never.
using SiteKey = std::tuple<int, bool, bool, const std::string*, const std::string*, int, bool>;
struct SiteTotal {
  uint64_t ns = 0, count = 0;
};
constexpr size_t kTurnAtKernelStacks = OFFCPU_MAX_STACKS / 8;
constexpr size_t kTurnAtUserStacks = OFFCPU_MAX_USER_STACKS / 8;
// Also bounds the names kept for the epoch in use: one per key at most
// (4096 x 2.5 KiB, 10 MiB).
constexpr size_t kTurnAtKeys = OFFCPU_MAX_SITES / 4;
constexpr uint64_t kTurnAtRefusedWalks = 8;
}  // namespace

bool TurnEpoch(const OffCpuEpochUse& u) {
  return u.kernel_stacks >= kTurnAtKernelStacks || u.user_stacks >= kTurnAtUserStacks || u.keys >= kTurnAtKeys ||
         (u.refused >= kTurnAtRefusedWalks && u.refused * 10 > u.walked);
}

struct OffCpuSource::Bpf {
  offcpu_bpf* skel = nullptr;
  uint64_t generation = 0;
  int cpus = 0;
  Symbolizer symbols;
  uint32_t epoch = 0;             // the program's (skel->bss->epoch)
  bool retiring = false;          // turned at the last Read: epoch - 1 is retired at this one
  std::set<uint32_t> old_epochs;  // turned from, their names maybe still kept
  // Names, per epoch: (epoch, stack id) -> WaitSiteOf; (pid, epoch, kernel
  // stack id, user stack id) -> the folded frames (StackText). An old
  // epoch's stay while its keys or periods do (its pair may hold another
  // epoch's stacks by then).
  std::map<std::pair<uint32_t, int32_t>, const std::string*> site_of_stack;
  std::map<std::tuple<int, uint32_t, int32_t, int32_t>, const std::string*> stack_text;
  // Every text named, once: as many as the distinct stacks named (a stack
  // named past kMaxFoldedSites is "[other stacks]").
  std::unordered_set<std::string> texts;
  const std::string* Intern(std::string text) { return &*texts.insert(std::move(text)).first; }
  // The retired epochs' keys, named and summed (see "Epochs").
  std::map<SiteKey, SiteTotal> folded;
  std::map<int, int> pid_of;        // followed tid -> its process
  std::map<int, uint32_t> targets;  // tid -> its stack_threshold (offcpu_target)
  // Each thread's walks until the next Read (offcpu_target.walks_left):
  // twice its share of kOffCpuStacksPerSecond over the followed threads.
  uint32_t walks_per_read = static_cast<uint32_t>(2 * kOffCpuStacksPerSecond);
  // Each followed thread's periods (all sites) at the last Read, for its rate.
  std::map<int, uint64_t> last_periods;
  int64_t last_read_ns = 0;
  std::vector<offcpu_drops> drop_values;
  // Wakers' names (ReadWaker) and when each was read.
  std::map<int, std::pair<OffCpuWaker, int64_t>> waker_names;
  // Waker `tid`'s names: /proc's, read once a minute at most, while that
  // tid is still the process the wakeup found (`seen`, the slot's: the
  // kernel's names at the wakeup); the slot's where the thread exited
  // before the read or its tid is another process's now.
  const OffCpuWaker& Waker(int tid, int64_t now, const OffCpuWaker* seen) {
    auto it = waker_names.find(tid);
    if (it != waker_names.end() && now - it->second.second < kWakerNameNs &&
        (seen == nullptr || it->second.first.pid == seen->pid))
      return it->second.first;
    if (it == waker_names.end() && waker_names.size() >= kMaxWakerNames) waker_names.clear();
    auto& slot = waker_names[tid];
    slot = {ReadWaker(tid), now};
    if (seen != nullptr && slot.first.pid != seen->pid) slot.first = *seen;
    return slot.first;
  }
  // The followed threads' named wakers, by tid, as their slots keep them.
  // The names kept in the waker slots of `wakees` (the targets this read
  // found woken by a named thread; the others' slots are not looked up).
  std::map<int, OffCpuWaker> SlottedWakers(const std::set<int>& wakees) const {
    std::map<int, OffCpuWaker> out;
    for (int tid : wakees) {
      const uint32_t k = static_cast<uint32_t>(tid);
      offcpu_wakers w{};
      if (bpf_map__lookup_elem(skel->maps.waker_slots, &k, sizeof k, &w, sizeof w, 0) != 0) continue;
      for (int i = 0; i < OFFCPU_WAKER_SLOTS; ++i) {
        const int waker = static_cast<int>(w.tid[i] & ~OFFCPU_WAKER_SOFTIRQ);
        if (waker <= 0 || waker == static_cast<int>(OFFCPU_OTHER_WAKER)) continue;
        OffCpuWaker& n = out[waker];
        n.tid = waker;
        n.pid = static_cast<int>(w.tgid[i]);
        n.name.assign(w.comm[i], strnlen(w.comm[i], OFFCPU_COMM_LEN));
      }
    }
    return out;
  }
  ~Bpf() {
    if (skel != nullptr) offcpu_bpf::destroy(skel);
  }
  const bpf_map* KernelStacks(uint32_t e) const { return e & 1 ? skel->maps.stacks1 : skel->maps.stacks0; }
  const bpf_map* UserStacks(uint32_t e) const { return e & 1 ? skel->maps.user_stacks1 : skel->maps.user_stacks0; }
  // Whether epoch e's pair still holds its stacks: the current epoch's, and
  // the retiring one's until this Read empties it.
  bool Readable(uint32_t e) const { return e == epoch || (retiring && e + 1 == epoch); }
  // The stack's wait site, named once per (epoch, stack id) (a stack id is
  // never reused while its map holds it: the maps are not written with
  // BPF_F_REUSE_STACKID).
  const std::string* Site(uint32_t e, int32_t stack_id) {
    auto [it, fresh] = site_of_stack.try_emplace({e, stack_id}, nullptr);
    if (!fresh) return it->second;
    std::string where;  // "" for an unsampled or unkept stack
    uint64_t ips[OFFCPU_STACK_DEPTH] = {};
    if (stack_id >= 0 && Readable(e))
      if (int n = Ips(KernelStacks(e), stack_id, ips); n > 0) where = WaitSiteOf(symbols.kernel(), ips, n);
    it->second = Intern(std::move(where));
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
  // (process, epoch, stacks): a stack id is the same addresses in any
  // process, named by each process's own maps.
  const std::string* StackText(int tid, uint32_t e, int32_t kernel_id, int32_t user_id) {
    const int pid = PidOf(tid);
    auto [it, fresh] = stack_text.try_emplace({pid, e, kernel_id, user_id}, nullptr);
    if (!fresh) return it->second;
    std::vector<std::string> frames;
    uint64_t ips[OFFCPU_STACK_DEPTH] = {};
    if (kernel_id >= 0 && Readable(e)) {
      if (int n = Ips(UserStacks(e), user_id, ips); n > 0)
        symbols.AppendUser(pid, ips, n, &frames);
      else if (user_id == -EEXIST)
        frames.push_back("[user stack not kept]");  // its bucket in the user map held another stack
      if (int n = Ips(KernelStacks(e), kernel_id, ips); n > 0) {
        // The walk starts in the tracepoint's program: the frames innermost
        // of the switch (__schedule) are the tracer's, not the thread's.
        int from = 0;
        for (int i = 0; i < std::min(n, 8); ++i)
          if (symbols.kernel().Name(ips[i]) == "__schedule") from = i;
        symbols.AppendKernel(ips + from, n - from, &frames);
      }
    }
    // Once as many are folded as are kept, a new stack is one of the others,
    // for as long as this name is kept: a key's stack never changes.
    it->second = Intern(frames.empty()                    ? std::string()
                        : folded.size() < kMaxFoldedSites ? FoldedFrames(frames)
                                                          : std::string("[other stacks]"));
    return it->second;
  }
  // Empties epoch e's pair of stack maps.
  void EmptyStacks(uint32_t e) {
    for (const bpf_map* map : {KernelStacks(e), UserStacks(e)}) {
      std::vector<int32_t> ids;
      int32_t id = 0, next = 0;
      const int32_t* prev = nullptr;
      while (bpf_map__get_next_key(map, prev, &next, sizeof next) == 0) {
        ids.push_back(next);
        id = next;
        prev = &id;
      }
      for (int32_t i : ids) bpf_map__delete_elem(map, &i, sizeof i, 0);
    }
  }
  // Forgets the names of old epochs but those still needed: of the keys
  // not folded and the periods under way (`sites`: (epoch, kernel stack
  // id); `stacks`: as stack_text's keys). Their texts stay interned.
  void KeepOldNames(const std::set<std::pair<uint32_t, int32_t>>& sites,
                    const std::set<std::tuple<int, uint32_t, int32_t, int32_t>>& stacks) {
    std::erase_if(site_of_stack, [&](const auto& kv) { return kv.first.first != epoch && !sites.count(kv.first); });
    std::erase_if(stack_text,
                  [&](const auto& kv) { return std::get<1>(kv.first) != epoch && !stacks.count(kv.first); });
  }
  // Forgets the texts nothing refers to any more (a thread no longer
  // followed took its folded totals), once they are twice the folded
  // totals' bound.
  void ForgetUnusedTexts() {
    if (texts.size() < 2 * kMaxFoldedSites) return;
    std::unordered_set<const std::string*> used;
    for (const auto& [k, t] : folded) used.insert(std::get<3>(k)), used.insert(std::get<4>(k));
    for (const auto& [k, text] : site_of_stack) used.insert(text);
    for (const auto& [k, text] : stack_text) used.insert(text);
    std::erase_if(texts, [&](const std::string& t) { return !used.count(&t); });
  }
  int PidOf(int tid) const {
    auto p = pid_of.find(tid);
    return p != pid_of.end() ? p->second : tid;
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
    bpf_map__delete_elem(b.skel->maps.overflow, &k, sizeof k, 0);
    b.last_periods.erase(it->first);
    auto tid_sites = [tid = it->first](const auto& kv) { return std::get<0>(kv.first) == tid; };
    std::erase_if(b.folded, tid_sites);
    it = b.targets.erase(it);
  }
  for (int tid : want) {
    if (b.targets.count(tid)) continue;
    if (static_cast<int>(b.targets.size()) >= OFFCPU_MAX_TARGETS) break;
    const uint32_t k = static_cast<uint32_t>(tid);
    // Every stack until its rate is known, up to a second's share.
    const offcpu_target t{0xffffffffu, b.walks_per_read};
    const offcpu_wakers free_slots{};
    const offcpu_overflow none{};
    // The slots first: a thread followed without them has every waker "other".
    if (bpf_map__update_elem(b.skel->maps.waker_slots, &k, sizeof k, &free_slots, sizeof free_slots, BPF_ANY) != 0 ||
        bpf_map__update_elem(b.skel->maps.overflow, &k, sizeof k, &none, sizeof none, BPF_ANY) != 0 ||
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
  // The periods under way, read before the totals: an old epoch's key
  // whose thread has no period of that epoch under way now takes no more
  // adds, and is folded.
  std::map<int, offcpu_start> under_way;
  for (const auto& [tid, threshold] : b.targets) {
    const uint32_t k = static_cast<uint32_t>(tid);
    offcpu_start st{};
    if (bpf_map__lookup_elem(b.skel->maps.starts, &k, sizeof k, &st, sizeof st, 0) == 0) under_way[tid] = st;
  }
  auto under_way_in = [&](int tid, uint32_t e) {
    auto it = under_way.find(tid);
    return it != under_way.end() && it->second.epoch == e;
  };
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
  offcpu_key key{}, next{};
  const offcpu_key* prev = nullptr;
  size_t keys = 0;
  for (; keys < OFFCPU_MAX_SITES && bpf_map__get_next_key(b.skel->maps.totals, prev, &next, sizeof next) == 0; ++keys) {
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

  std::map<SiteKey, SiteTotal> sites = b.folded;
  // kWakerNotYet: the reader's own, for a period under way.
  auto add = [&](std::map<SiteKey, SiteTotal>& into, uint32_t tid, uint32_t epoch, int32_t stack_id, int32_t user_id,
                 bool involuntary, uint32_t waker_key, uint64_t ns, uint64_t count, bool under_way = false) {
    const bool sampled = stack_id != OFFCPU_UNSAMPLED;
    const bool softirq = waker_key != OFFCPU_NO_WAKER && (waker_key & OFFCPU_WAKER_SOFTIRQ) != 0;
    const int waker = under_way                         ? kWakerNotYet
                      : waker_key == OFFCPU_NO_WAKER    ? kNoWaker
                      : waker_key == OFFCPU_OTHER_WAKER ? kOtherWaker
                                                        : static_cast<int>(waker_key & ~OFFCPU_WAKER_SOFTIRQ);
    SiteTotal& t = into[{static_cast<int>(tid), involuntary, sampled, b.Site(epoch, stack_id),
                         b.StackText(static_cast<int>(tid), epoch, stack_id, user_id), waker, softirq}];
    t.ns += ns;
    t.count += count;
  };
  std::vector<offcpu_key> fold;  // old epochs' keys done with: folded, then deleted
  std::set<uint32_t> live;       // old epochs still keyed or under way
  // Their names, still needed.
  std::set<std::pair<uint32_t, int32_t>> old_sites;
  std::set<std::tuple<int, uint32_t, int32_t, int32_t>> old_texts;
  auto need = [&](int tid, uint32_t e, int32_t kernel_id, int32_t user_id) {
    live.insert(e);
    old_sites.insert({e, kernel_id});
    old_texts.insert({b.PidOf(tid), e, kernel_id, user_id});
  };
  std::set<int32_t> kernel_ids, user_ids;  // the current epoch's, in use
  uint64_t walked = 0, refused = 0;        // the current epoch's periods
  for (const auto& [k, v] : raw) {
    if (k.epoch == b.epoch) {
      kernel_ids.insert(k.stack_id);
      user_ids.insert(k.user_stack_id);
      if (k.stack_id != OFFCPU_UNSAMPLED) walked += v.count, refused += k.stack_id == -EEXIST ? v.count : 0;
    } else if (!under_way_in(static_cast<int>(k.tid), k.epoch)) {
      add(b.folded, k.tid, k.epoch, k.stack_id, k.user_stack_id, k.involuntary != 0, k.waker, v.ns, v.count);
      fold.push_back(k);
    } else {
      need(static_cast<int>(k.tid), k.epoch, k.stack_id, k.user_stack_id);
    }
    add(sites, k.tid, k.epoch, k.stack_id, k.user_stack_id, k.involuntary != 0, k.waker, v.ns, v.count);
  }
  for (const auto& [tid, st] : under_way) {
    if (st.epoch == b.epoch) {
      kernel_ids.insert(st.stack_id);
      user_ids.insert(st.user_stack_id);
    } else {
      need(tid, st.epoch, st.stack_id, st.user_stack_id);
      b.StackText(tid, st.epoch, st.stack_id, st.user_stack_id);  // named while its pair holds it
      b.Site(st.epoch, st.stack_id);
    }
  }
  // Periods that found `totals` full: their time, without their stacks.
  for (const auto& [tid, threshold] : b.targets) {
    const uint32_t k = static_cast<uint32_t>(tid);
    offcpu_overflow o{};
    if (bpf_map__lookup_elem(b.skel->maps.overflow, &k, sizeof k, &o, sizeof o, 0) != 0) continue;
    for (int i : {0, 1})
      if (o.count[i] > 0)
        add(sites, k, b.epoch, OFFCPU_UNSAMPLED, OFFCPU_UNSAMPLED, i == 1, OFFCPU_NO_WAKER, o.ns[i], o.count[i]);
  }
  // A thread off the CPU now: its period so far counts at its site, so a
  // window holds the time spent in it, not whole periods ended in it (the
  // next read's total replaces this part when the period ends).
  for (const auto& [tid, threshold] : b.targets) {
    const uint32_t k = static_cast<uint32_t>(tid);
    offcpu_start st{};
    if (bpf_map__lookup_elem(b.skel->maps.starts, &k, sizeof k, &st, sizeof st, 0) != 0) continue;
    const uint64_t now = static_cast<uint64_t>(out->mono_ns);
    // Its waker, if one was seen, ends it in the next read: not yet.
    if (now > st.ns)
      add(sites, k, st.epoch, st.stack_id, st.user_stack_id, st.involuntary != 0, OFFCPU_NO_WAKER, now - st.ns, 0,
          true);
  }
  for (const offcpu_key& k : fold) bpf_map__delete_elem(b.skel->maps.totals, &k, sizeof k, 0);
  // The old epochs' names: once as the epoch retires, then as each
  // epoch's last sleeper wakes.
  if (b.retiring || std::any_of(b.old_epochs.begin(), b.old_epochs.end(), [&](uint32_t e) { return !live.count(e); })) {
    b.KeepOldNames(old_sites, old_texts);
    std::erase_if(b.old_epochs, [&](uint32_t e) { return !live.count(e); });
  }
  if (b.retiring) {
    b.EmptyStacks(b.epoch - 1);
    b.retiring = false;
  }
  if (TurnEpoch({kernel_ids.size(), user_ids.size(), keys, walked, refused})) {
    b.old_epochs.insert(b.epoch);  // until no key or period of it is left
    b.retiring = true;
    b.epoch += 1;
    __atomic_store_n(&b.skel->bss->epoch, b.epoch, __ATOMIC_SEQ_CST);
  }
  out->sites.clear();
  out->wakers.clear();
  std::set<int> wakers, wakees;
  out->sites.reserve(sites.size());
  for (const auto& [k, t] : sites) {
    const auto& [tid, involuntary, sampled, where, stack, waker, softirq] = k;
    if (waker > 0) {
      wakers.insert(waker);
      wakees.insert(tid);
    }
    out->sites.push_back({tid, *where, involuntary, t.ns, t.count, sampled, waker, softirq, *stack});
  }
  std::sort(out->sites.begin(), out->sites.end(), [](const OffCpuSite& x, const OffCpuSite& y) {
    return std::tie(x.tid, x.involuntary, x.sampled, x.where, x.stack, x.waker, x.waker_softirq) <
           std::tie(y.tid, y.involuntary, y.sampled, y.where, y.stack, y.waker, y.waker_softirq);
  });
  // Read after the totals: a waker in them took its slot first.
  const std::map<int, OffCpuWaker> slotted = b.SlottedWakers(wakees);
  for (int tid : wakers) {
    auto seen = slotted.find(tid);
    out->wakers.push_back(b.Waker(tid, out->mono_ns, seen != slotted.end() ? &seen->second : nullptr));
  }
  b.ForgetUnusedTexts();
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
  // The walks a second are shared by the threads that switched: each new
  // stack may be a new key (a binary without frame pointers walks a new
  // one nearly every period), and `totals` must hold a tick's.
  size_t switching = 0;
  for (const auto& [tid, n] : periods) {
    auto last = b.last_periods.find(tid);
    switching += last == b.last_periods.end() || n > last->second ? 1 : 0;
  }
  const double per_thread =
      std::min(kOffCpuStacksPerSecond, kOffCpuStacksPerSecondAll / static_cast<double>(std::max<size_t>(switching, 1)));
  b.walks_per_read = static_cast<uint32_t>(std::max(2 * per_thread, 16.0));
  for (auto& [tid, threshold] : b.targets) {
    const uint64_t now = periods[tid];  // 0 for a thread with no period yet: its rate counts from here
    auto last = b.last_periods.find(tid);
    uint32_t want = threshold;
    if (last != b.last_periods.end() && seconds > 0 && now >= last->second) {
      const double rate = static_cast<double>(now - last->second) / seconds;
      want = rate <= per_thread ? 0xffffffffu : static_cast<uint32_t>(4294967295.0 * per_thread / rate);
      // A thread that did not switch spent no walks: nothing to write (a
      // syscall a thread a tick, for thousands of idle targets).
      if (now == last->second && want == threshold) continue;
    }
    // Written: it refills walks_left too.
    const uint32_t k = static_cast<uint32_t>(tid);
    const offcpu_target t{want, b.walks_per_read};
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
