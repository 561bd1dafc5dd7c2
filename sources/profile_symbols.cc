#include "sources/profile_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/state_file.h"

namespace bottleneckd {
namespace {

constexpr std::string_view kUnknownFrame = "[unknown]";
// Named frames kept per process (Process::frames): about 100 bytes each.
constexpr size_t kMaxFramesKept = 65536;

// /proc/PID/maps of a large process (a browser, a JVM) is a few hundred KiB.
constexpr size_t kMaxMapsBytes = 16u << 20;

// Where a thread's user stack begins: the program's entry, glibc's thread
// start and the clone calls under it. A frame-pointer walk past these reads
// the caller's registers as frames.
bool IsEntry(std::string_view name) {
  static constexpr std::string_view kEntries[] = {
      "_start",   "__libc_start_main", "__libc_start_call_main", "start_thread", "clone", "clone3", "__clone",
      "__clone3", "thread_start"};
  return std::find(std::begin(kEntries), std::end(kEntries), name) != std::end(kEntries);
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string Demangle(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  std::string mangled(name);
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    std::free(out);
    return mangled;
  }
  std::string s(out);
  std::free(out);
  return s;
}

Symbolizer::Symbolizer(std::string procfs) : procfs_(std::move(procfs)) {}

void Symbolizer::AppendKernel(const uint64_t* ips, int n, std::vector<std::string>* out) const {
  for (int i = n - 1; i >= 0; --i) {
    std::string_view name = kernel_.Name(ips[i]);
    out->push_back((name.empty() ? Hex(ips[i]) : std::string(name)) + " [kernel]");
  }
}

const ElfSymbols* Symbolizer::FileSymbols(int pid, const MappedRange& r) {
  const auto key = std::make_tuple(r.dev_major, r.dev_minor, r.inode);
  auto it = files_.find(key);
  if (it != files_.end()) return it->second.get();
  std::shared_ptr<const ElfSymbols> syms;
  auto loaded = std::make_shared<ElfSymbols>();
  // Through the process's root: a container's /usr/bin is not the host's.
  // A file deleted since it was mapped (an upgrade replaced it) is still
  // open through map_files; the path would find the new file, or none.
  char range[48];
  std::snprintf(range, sizeof range, "/map_files/%llx-%llx", static_cast<unsigned long long>(r.start),
                static_cast<unsigned long long>(r.end));
  const std::string proc = procfs_ + "/" + std::to_string(pid);
  if (loaded->Load(r.deleted ? proc + range : proc + "/root" + r.path).ok()) {
    if (!loaded->build_id().empty()) {
      auto [b, fresh] = by_build_id_.try_emplace(loaded->build_id(), loaded);
      syms = b->second;  // the copy already held for this build, if any
    } else {
      syms = loaded;
    }
  }
  // A file that cannot be read (gone, a permission) is remembered as such:
  // its frames stay addresses, and it is not read again at every sample.
  return files_.emplace(key, std::move(syms)).first->second.get();
}

const ElfSymbols* Symbolizer::VdsoSymbols(const MappedRange& r) {
  if (!vdso_tried_) {
    vdso_tried_ = true;
    // The image's extent from its own headers: the section headers end it.
    const auto* base = reinterpret_cast<const unsigned char*>(::getauxval(AT_SYSINFO_EHDR));
    if (base != nullptr && std::memcmp(base, ELFMAG, SELFMAG) == 0 && base[EI_CLASS] == ELFCLASS64) {
      const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
      size_t size = static_cast<size_t>(eh->e_shoff) + size_t{eh->e_shnum} * eh->e_shentsize;
      const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
      for (int i = 0; i < eh->e_phnum; ++i)
        if (ph[i].p_type == PT_LOAD) size = std::max<size_t>(size, ph[i].p_offset + ph[i].p_filesz);
      auto syms = std::make_unique<ElfSymbols>();
      if (size <= (64u << 10) && syms->LoadImage(std::string_view(reinterpret_cast<const char*>(base), size)).ok()) {
        vdso_ = std::move(syms);
        vdso_size_ = size;
      }
    }
  }
  return vdso_ && r.end - r.start >= vdso_size_ ? vdso_.get() : nullptr;
}

std::string Symbolizer::UserFrame(int pid, Process& p, uint64_t ip, bool* entry) {
  *entry = false;
  if (p.read) {
    if (auto it = p.frames.find(ip); it != p.frames.end()) {
      *entry = it->second.second;
      return it->second.first;
    }
  } else {
    p.read = true;
    p.ticks_since_read = 0;
    p.frames.clear();
    ++maps_reads_;
    std::string text;
    if (ReadStateFile(procfs_ + "/" + std::to_string(pid) + "/maps", kMaxMapsBytes, &text).ok())
      p.maps.Parse(text).IgnoreError();  // an unreadable table names nothing: its frames stay [unknown]
  }
  const MappedRange* r = p.maps.Find(ip);
  if (r == nullptr && p.ticks_since_read >= kMapsRereadTicks) {  // mapped since (a dlopen, a JIT)?
    p.read = false;
    return UserFrame(pid, p, ip, entry);
  }
  if (r == nullptr) return std::string(kUnknownFrame);  // not kept: garbage addresses are many
  const std::string module(BaseName(r->path.empty() ? "[anon]" : r->path));
  const bool vdso = r->path == "[vdso]";
  const ElfSymbols* syms = vdso                                   ? VdsoSymbols(*r)
                           : r->path.empty() || r->path[0] != '/' ? nullptr
                                                                  : FileSymbols(pid, *r);
  // A return address points after its call: look up the byte before it so
  // a call that ends a function names that function.
  std::string_view name;
  if (syms != nullptr) name = syms->NameAtFileOffset(FileOffsetOf(*r, ip > 0 ? ip - 1 : ip));
  if (p.frames.size() >= kMaxFramesKept) p.frames.clear();
  auto& [text, is_entry] = p.frames[ip];
  if (name.empty()) {
    text = Hex(ip) + " (" + module + ")";
  } else {
    is_entry = IsEntry(name);
    text = Demangle(name) + " (" + module + ")";
  }
  *entry = is_entry;
  return text;
}

void Symbolizer::AppendUser(int pid, const uint64_t* ips, int n, std::vector<std::string>* out) {
  Process& p = procs_[pid];
  std::vector<std::string> frames;  // innermost first
  bool reached_entry = false;
  for (int i = 0; i < n; ++i) {
    bool entry = false;
    std::string frame = UserFrame(pid, p, ips[i], &entry);
    // A return address in no mapping: the frame-pointer chain broke below
    // it (a binary without frame pointers), and what follows is garbage, a
    // new stack nearly every walk. Named up to the break, such walks are a
    // few stacks, not thousands (sources/offcpu.cc "Epochs").
    if (i > 0 && frame == kUnknownFrame) break;
    frames.push_back(std::move(frame));
    if (entry) {
      reached_entry = true;
      break;
    }
  }
  if (!reached_entry && !frames.empty()) out->push_back("[truncated]");
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) out->push_back(std::move(*it));
}

void Symbolizer::ForgetExited() {
  for (auto it = procs_.begin(); it != procs_.end();) {
    struct stat st;
    if (stat((procfs_ + "/" + std::to_string(it->first)).c_str(), &st) == 0) {
      ++it->second.ticks_since_read;
      ++it;
    } else {
      it = procs_.erase(it);
    }
  }
}

size_t Symbolizer::bytes() const {
  size_t b = 0;
  for (const auto& [pid, p] : procs_)
    b += sizeof p + p.maps.ranges().size() * (sizeof(MappedRange) + 48) + p.frames.size() * 100;
  std::vector<const ElfSymbols*> seen;  // one table may serve several inodes (one build ID)
  for (const auto& [key, s] : files_)
    if (s && std::find(seen.begin(), seen.end(), s.get()) == seen.end()) {
      seen.push_back(s.get());
      b += s->size() * 40;  // an address, a size and about 24 bytes of name per symbol
    }
  return b;
}

}  // namespace bottleneckd
