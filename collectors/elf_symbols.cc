#include "collectors/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <tuple>

#include "base/unique_fd.h"

namespace bottleneckd {
namespace {

// Larger files (and name tables) are refused: the biggest shared objects a
// profiled process maps (libLLVM, a browser's libxul) stay well below.
constexpr uint64_t kMaxBytes = uint64_t{1} << 30;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kNoEnd = std::numeric_limits<uint64_t>::max();
// A build ID is 16 (md5) or 20 (sha1) bytes; a longer note is not one.
constexpr size_t kMaxBuildIdBytes = 64;

bool LibelfReady() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

std::string ElfError() {
  const char* msg = elf_errmsg(-1);
  return msg != nullptr ? msg : "unknown libelf error";
}

// What libelf would only call "invalid" is told apart here: not ELF at all
// (Corruption) from an ELF variant this cannot read (NotSupported).
Status CheckIdent(std::string_view ident) {
  if (ident.size() < SELFMAG || ident.substr(0, SELFMAG) != std::string_view(ELFMAG, SELFMAG))
    return Status::Corruption("not an ELF file (no \\177ELF magic)");
  if (ident.size() < EI_NIDENT) return Status::Corruption("not an ELF file (shorter than its identification)");
  const int cls = static_cast<unsigned char>(ident[EI_CLASS]), data = static_cast<unsigned char>(ident[EI_DATA]),
            version = static_cast<unsigned char>(ident[EI_VERSION]);
  if (cls != ELFCLASS32 && cls != ELFCLASS64) return Status::NotSupported("ELF class " + std::to_string(cls));
  if (data != ELFDATA2LSB && data != ELFDATA2MSB)
    return Status::NotSupported("ELF data encoding " + std::to_string(data));
  if (version != EV_CURRENT) return Status::NotSupported("ELF version " + std::to_string(version));
  return Status::OK();
}

// Lower is preferred among aliases at one address.
int BindingRank(unsigned binding) {
  switch (binding) {
    case STB_GLOBAL: return 0;
    case STB_WEAK: return 1;
    case STB_LOCAL: return 2;
    default: return 3;  // STB_GNU_UNIQUE and the like: not a function's
  }
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > kNoEnd - a ? kNoEnd : a + b; }

}  // namespace

// One ELF file open in libelf: the header checked, its build ID and function
// symbols read. Names point into libelf's data, so the table is built before
// the file is closed.
class ElfSymbols::File {
 public:
  File() = default;
  ~File() {
    if (elf_ != nullptr) elf_end(elf_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  Status Open(const std::string& path) {
    if (!LibelfReady()) return Status::IOError("libelf: " + ElfError());
    fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd_.valid()) return Status::FromErrno(errno, path);
    struct stat st;
    if (::fstat(fd_.get(), &st) != 0) return Status::FromErrno(errno, path);
    // O_NONBLOCK and this keep a FIFO at the path from blocking the reader.
    if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file: not read");
    if (static_cast<uint64_t>(st.st_size) > kMaxBytes)
      return Status::NotSupported(path + ": " + std::to_string(st.st_size) + " bytes, over the 1 GiB read");
    char ident[EI_NIDENT];
    ssize_t got;
    do {
      got = ::pread(fd_.get(), ident, sizeof ident, 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return Status::FromErrno(errno, path);
    BN_RETURN_IF_ERROR(CheckIdent(std::string_view(ident, static_cast<size_t>(got))).WithContext(path));
    // ELF_C_READ reads with pread as sections are asked for: nothing of the
    // file is mapped, so one truncated meanwhile is an error, not a SIGBUS.
    elf_ = elf_begin(fd_.get(), ELF_C_READ, nullptr);
    return Begun().WithContext(path);
  }

  Status OpenImage(std::string_view image) {
    if (!LibelfReady()) return Status::IOError("libelf: " + ElfError());
    if (image.size() > kMaxBytes) return Status::NotSupported("an image over 1 GiB");
    BN_RETURN_IF_ERROR(CheckIdent(image));
    // libelf may convert data in place in memory it is given: a copy of ours.
    image_.assign(image);
    elf_ = elf_memory(image_.data(), image_.size());
    return Begun();
  }

  // The header, the PT_LOAD headers (into *segments, unless null), the build
  // ID and the function symbols.
  Status Read(std::vector<Segment>* segments) {
    GElf_Ehdr eh;
    if (gelf_getehdr(elf_, &eh) == nullptr) return Status::Corruption("ELF header: " + ElfError());
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
      return Status::NotSupported("ELF type " + std::to_string(eh.e_type) +
                                  ": not an executable or shared object, no load addresses");
    if (eh.e_machine == EM_PPC64 && (eh.e_flags & 3) != 2)
      return Status::NotSupported("PowerPC64 ELFv1: its function symbols name descriptors, not code");
    // Thumb functions' symbols have the lowest bit set; the code starts below.
    thumb_ = eh.e_machine == EM_ARM;
    if (segments != nullptr) BN_RETURN_IF_ERROR(ReadSegments(eh, segments));
    size_t sections = 0;
    if (elf_getshdrnum(elf_, &sections) != 0) return Status::Corruption("section count: " + ElfError());
    // libelf reads a section header table cut off by the file's end as none.
    if (eh.e_shnum != 0 && sections != eh.e_shnum)
      return Status::Corruption("the section headers run past the end of the file");
    // Each section's [sh_addr, sh_addr + sh_size): where a size-0 symbol ends.
    std::vector<std::pair<uint64_t, uint64_t>> bounds(sections);
    Elf_Scn* symtab = nullptr;
    Elf_Scn* dynsym = nullptr;
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr) return Status::Corruption("section header: " + ElfError());
      const size_t index = elf_ndxscn(scn);
      if (index < bounds.size()) bounds[index] = {sh.sh_addr, SaturatingAdd(sh.sh_addr, sh.sh_size)};
      if (sh.sh_type == SHT_SYMTAB && symtab == nullptr) symtab = scn;
      if (sh.sh_type == SHT_DYNSYM && dynsym == nullptr) dynsym = scn;
      if (sh.sh_type == SHT_NOTE && build_id_.empty()) BN_RETURN_IF_ERROR(ReadBuildId(scn));
    }
    has_symtab_ = symtab != nullptr;
    Elf_Scn* table = symtab != nullptr ? symtab : dynsym;
    return table != nullptr ? ReadSymbols(table, bounds) : Status::OK();
  }

  const std::string& build_id() const { return build_id_; }
  bool has_symtab() const { return has_symtab_; }

  // Replaces `out`'s table with these symbols: one per address (the
  // preferred alias), each with its end and the function it lies inside.
  Status FillTable(ElfSymbols* out) {
    std::sort(symbols_.begin(), symbols_.end(), [](const Candidate& a, const Candidate& b) {
      return std::tuple(a.addr, a.rank, a.name.size(), a.name) < std::tuple(b.addr, b.rank, b.name.size(), b.name);
    });
    std::vector<uint64_t> sizes, section_ends;
    out->addrs_.clear();
    out->name_start_.clear();
    out->names_.clear();
    for (size_t i = 0; i < symbols_.size();) {
      const Candidate& chosen = symbols_[i];
      uint64_t size = 0, section_end = 0;
      for (; i < symbols_.size() && symbols_[i].addr == chosen.addr; ++i) {
        size = std::max(size, symbols_[i].size);
        section_end = std::max(section_end, symbols_[i].section_end);
      }
      if (out->names_.size() + chosen.name.size() + 1 > kMaxBytes)
        return Status::NotSupported("symbol names over 1 GiB");
      out->addrs_.push_back(chosen.addr);
      out->name_start_.push_back(static_cast<uint32_t>(out->names_.size()));
      out->names_.append(chosen.name);
      out->names_.push_back('\0');
      sizes.push_back(size);
      section_ends.push_back(section_end);
    }
    const size_t n = out->addrs_.size();
    out->ends_.assign(n, 0);
    out->enclosing_.assign(n, kNone);
    std::vector<uint32_t> open;  // functions whose range reaches the current address, innermost last
    for (size_t k = 0; k < n; ++k) {
      const uint64_t addr = out->addrs_[k];
      uint64_t end;
      if (sizes[k] > 0) {
        end = SaturatingAdd(addr, sizes[k]);
      } else {
        // A size-0 symbol (hand-written assembly) reaches the next symbol,
        // within its section; with neither known, only its own address.
        end = k + 1 < n ? out->addrs_[k + 1] : kNoEnd;
        if (section_ends[k] > addr) end = std::min(end, section_ends[k]);
        if (end == kNoEnd) end = SaturatingAdd(addr, 1);
      }
      out->ends_[k] = end;
      while (!open.empty() && out->ends_[open.back()] <= addr) open.pop_back();
      if (!open.empty()) out->enclosing_[k] = open.back();
      open.push_back(static_cast<uint32_t>(k));
    }
    return Status::OK();
  }

 private:
  Status Begun() {
    if (elf_ == nullptr) return Status::Corruption("not a valid ELF file: " + ElfError());
    if (elf_kind(elf_) != ELF_K_ELF) return Status::Corruption("not an ELF object");
    return Status::OK();
  }

  Status ReadSegments(const GElf_Ehdr& eh, std::vector<Segment>* segments) {
    size_t count = 0;
    if (elf_getphdrnum(elf_, &count) != 0) return Status::Corruption("program header count: " + ElfError());
    // libelf counts only the program headers before the file's end.
    if (eh.e_phnum != PN_XNUM && count != eh.e_phnum)
      return Status::Corruption("the program headers run past the end of the file");
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf_, static_cast<int>(i), &ph) == nullptr)
        return Status::Corruption("program header " + std::to_string(i) + ": " + ElfError());
      if (ph.p_type != PT_LOAD) continue;
      if (ph.p_filesz > kNoEnd - ph.p_offset || ph.p_filesz > kNoEnd - ph.p_vaddr)
        return Status::Corruption("PT_LOAD " + std::to_string(i) + " runs past the end of the address space");
      segments->push_back({ph.p_offset, ph.p_filesz, ph.p_vaddr});
    }
    return Status::OK();
  }

  // The first NT_GNU_BUILD_ID note of the section, if any.
  Status ReadBuildId(Elf_Scn* scn) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) return Status::Corruption("note section: " + ElfError());
    if (data->d_buf == nullptr) return Status::OK();
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    GElf_Nhdr note;
    size_t name_at = 0, desc_at = 0;
    // gelf_getnote checks that the note and its name and descriptor lie in
    // the section; 0 at the end or at a note that does not.
    for (size_t at = 0, next; (next = gelf_getnote(data, at, &note, &name_at, &desc_at)) > 0; at = next) {
      if (note.n_type != NT_GNU_BUILD_ID || note.n_namesz != 4 || std::memcmp(bytes + name_at, "GNU", 4) != 0 ||
          note.n_descsz == 0 || note.n_descsz > kMaxBuildIdBytes)
        continue;
      static constexpr char kHex[] = "0123456789abcdef";
      for (size_t i = 0; i < note.n_descsz; ++i) {
        build_id_.push_back(kHex[bytes[desc_at + i] >> 4]);
        build_id_.push_back(kHex[bytes[desc_at + i] & 15]);
      }
      break;
    }
    return Status::OK();
  }

  Status ReadSymbols(Elf_Scn* scn, const std::vector<std::pair<uint64_t, uint64_t>>& bounds) {
    GElf_Shdr sh;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (gelf_getshdr(scn, &sh) == nullptr || data == nullptr) return Status::Corruption("symbol table: " + ElfError());
    const size_t entry = gelf_fsize(elf_, ELF_T_SYM, 1, EV_CURRENT);
    if (data->d_buf == nullptr || entry == 0) return Status::OK();
    const size_t count = data->d_size / entry;
    for (size_t i = 1; i < count; ++i) {  // entry 0 is the undefined symbol
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr)
        return Status::Corruption("symbol " + std::to_string(i) + ": " + ElfError());
      const unsigned type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
      const uint64_t addr = thumb_ ? sym.st_value & ~uint64_t{1} : sym.st_value;
      if (addr == 0) continue;
      const char* name = elf_strptr(elf_, sh.sh_link, sym.st_name);
      if (name == nullptr)
        return Status::Corruption("symbol " + std::to_string(i) + ": name outside the string table: " + ElfError());
      if (*name == '\0') continue;
      // A .symtab spells a versioned symbol with its version
      // ("clock_nanosleep@@GLIBC_2.17"; .dynsym keeps versions apart): the
      // function is the name before it, as nm -D and perf print it.
      std::string_view spelled(name);
      if (size_t at = spelled.find('@'); at != std::string_view::npos && at > 0) spelled = spelled.substr(0, at);
      uint64_t section_end = 0;
      if (sym.st_shndx < SHN_LORESERVE && sym.st_shndx < bounds.size() && bounds[sym.st_shndx].first <= addr &&
          addr < bounds[sym.st_shndx].second)
        section_end = bounds[sym.st_shndx].second;
      symbols_.push_back({addr, sym.st_size, section_end, BindingRank(GELF_ST_BIND(sym.st_info)), spelled});
    }
    return Status::OK();
  }

  // Kept in the class, not the anonymous namespace: a unity batch is not
  // the main file, where GCC (-Wsubobject-linkage) refuses such a member.
  struct Candidate {
    uint64_t addr, size;
    uint64_t section_end;  // 0 when unknown
    int rank;
    std::string_view name;  // in libelf's copy of the string table
  };

  UniqueFd fd_;
  std::string image_;
  Elf* elf_ = nullptr;
  bool thumb_ = false, has_symtab_ = false;
  std::string build_id_;
  std::vector<Candidate> symbols_;
};

void ElfSymbols::Clear() {
  addrs_.clear();
  ends_.clear();
  enclosing_.clear();
  name_start_.clear();
  names_.clear();
  segments_.clear();
  build_id_.clear();
  from_symtab_ = from_debug_file_ = false;
}

Status ElfSymbols::Load(const std::string& path, const std::string& debug_root) {
  Clear();
  File file;
  Status s = file.Open(path);
  if (s.ok()) s = file.Read(&segments_).WithContext(path);
  if (!s.ok()) {
    Clear();
    return s;
  }
  build_id_ = file.build_id();
  from_symtab_ = file.has_symtab();
  if (!from_symtab_ && build_id_.size() > 2 && !debug_root.empty()) {
    File debug;
    const std::string debug_path =
        debug_root + "/.build-id/" + build_id_.substr(0, 2) + "/" + build_id_.substr(2) + ".debug";
    // A debug file of another build would name the wrong functions.
    if (debug.Open(debug_path).ok() && debug.Read(nullptr).ok() && debug.has_symtab() &&
        debug.build_id() == build_id_ && debug.FillTable(this).ok()) {
      from_symtab_ = from_debug_file_ = true;
      return Status::OK();
    }
  }
  s = file.FillTable(this).WithContext(path);
  if (!s.ok()) Clear();
  return s;
}

Status ElfSymbols::LoadImage(std::string_view image) {
  Clear();
  File file;
  Status s = file.OpenImage(image);
  if (s.ok()) s = file.Read(&segments_);
  if (s.ok()) s = file.FillTable(this);
  if (!s.ok()) {
    Clear();
    return s;
  }
  build_id_ = file.build_id();
  from_symtab_ = file.has_symtab();
  return Status::OK();
}

std::string_view ElfSymbols::NameAtAddress(uint64_t vaddr) const {
  auto it = std::upper_bound(addrs_.begin(), addrs_.end(), vaddr);
  if (it == addrs_.begin()) return {};
  uint32_t i = static_cast<uint32_t>(it - addrs_.begin()) - 1;
  while (i != kNone && ends_[i] <= vaddr) i = enclosing_[i];
  return i == kNone ? std::string_view() : std::string_view(names_.data() + name_start_[i]);
}

std::string_view ElfSymbols::NameAtFileOffset(uint64_t off) const {
  for (const Segment& s : segments_) {
    if (off >= s.offset && off - s.offset < s.filesz) return NameAtAddress(off - s.offset + s.vaddr);
  }
  return {};
}

}  // namespace bottleneckd
