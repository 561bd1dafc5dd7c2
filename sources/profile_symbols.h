// Symbolizer: names the frames of the profiler's stacks (sources/profile.h).
// Kernel frames from /proc/kallsyms (collectors/kallsyms.h); user frames from
// the process's /proc/PID/maps (collectors/proc_maps.h) and the symbol tables
// of the binaries mapped there (collectors/elf_symbols.h: .symtab, else a
// separate debug file for the build ID, else .dynsym), read through
// /proc/PID/root so a container's binaries are its own.
//
// Caches: one ElfSymbols per file (device and inode), shared by every process
// that maps it and looked up by GNU build ID too, so a binary copied or
// reinstalled under another inode is read once; one ProcMaps per process,
// read again when an address falls outside it (the process mapped more; at
// most once in kMapsRereadTicks) and dropped when the process is gone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "collectors/elf_symbols.h"
#include "collectors/kallsyms.h"
#include "collectors/proc_maps.h"

namespace bottleneckd {

class Symbolizer {
 public:
  // procfs: "/proc" live; tests point it at a tree of their own.
  explicit Symbolizer(std::string procfs = "/proc");

  KernelSymbols& kernel() { return kernel_; }

  // Appends kernel frames `ips` (innermost first) to *out outermost first,
  // each "name [kernel]" ("0xADDRESS [kernel]" below the first symbol).
  void AppendKernel(const uint64_t* ips, int n, std::vector<std::string>* out) const;
  // Appends user frames `ips` (innermost first) of process pid to *out,
  // outermost first: "name (binary)", "0xADDRESS (binary)" without a symbol,
  // "[unknown]" for the innermost outside every mapping; an outer one
  // there ends the walk (the chain broke: its return address is garbage).
  // Frames past a thread's entry (_start, start_thread, clone3) are
  // dropped: a frame-pointer walk reads on into the caller's garbage there.
  // A stack that reaches no entry gets
  // "[truncated]" as its outermost frame: its binary (or a library on the
  // way) keeps no frame pointers, so its callers are unknown.
  void AppendUser(int pid, const uint64_t* ips, int n, std::vector<std::string>* out);

  // Forgets the processes that are gone (their pids may come back as
  // others'), and lets the others' maps be read again once more.
  void ForgetExited();
  // Files and processes cached, and an estimate of their bytes.
  size_t files() const { return files_.size(); }
  size_t processes() const { return procs_.size(); }
  size_t bytes() const;
  // Reads of /proc/PID/maps so far (all processes).
  size_t maps_reads() const { return maps_reads_; }

  // An address outside a process's maps reads them again (a dlopen, a JIT)
  // at most once in this many ticks: a stack with a garbage frame (no frame
  // pointers) would otherwise re-read them every tick.
  static constexpr int kMapsRereadTicks = 10;

 private:
  struct Process {
    ProcMaps maps;
    bool read = false;         // maps read (successfully or not)
    int ticks_since_read = 0;  // ForgetExited calls since the maps were read
    // Frames named since the maps were read, by address: (name, entry).
    // Naming one (a mapping's search, a symbol's, a demangling) took ~10
    // us; the off-CPU reader names a tick's new stacks, often thousands of
    // frames at the same few addresses.
    std::unordered_map<uint64_t, std::pair<std::string, bool>> frames;
  };
  const ElfSymbols* FileSymbols(int pid, const MappedRange& r);
  // The vDSO's functions, read from this process's own vDSO (the kernel maps
  // one image into every process of an ABI): nullptr when it has none or the
  // range `r` ([vdso] of the target) is smaller than it (another ABI's).
  const ElfSymbols* VdsoSymbols(const MappedRange& r);
  std::string UserFrame(int pid, Process& p, uint64_t ip, bool* entry);

  std::string procfs_;
  size_t maps_reads_ = 0;
  KernelSymbols kernel_;
  std::map<int, Process> procs_;
  // (dev major, dev minor, inode) -> symbols; nullptr: the file could not be read.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::shared_ptr<const ElfSymbols>> files_;
  std::map<std::string, std::shared_ptr<const ElfSymbols>> by_build_id_;
  bool vdso_tried_ = false;
  size_t vdso_size_ = 0;  // this process's vDSO image, in bytes
  std::unique_ptr<ElfSymbols> vdso_;
};

// The function name with its C++ mangling undone ("_ZN3foo3barEv" ->
// "foo::bar()"); other names unchanged.
std::string Demangle(std::string_view name);

}  // namespace bottleneckd
