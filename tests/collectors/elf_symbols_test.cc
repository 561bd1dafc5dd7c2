// ElfSymbols on real files (this test binary and the libc it runs on, named
// through their /proc/self/maps ranges as the profiler will, checked against
// binutils' nm/readelf), on a separate debug file made with objcopy, on
// small ELF images written here (the alias and size rules, where the
// expected names are the ones written in), and on files that are not ELF.
#include "collectors/elf_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "collectors/proc_maps.h"
#include "tests/support/test_util.h"

// The function the test binary must name: C linkage so that its symbol is
// this name unmangled, noinline so that it is a function of its own.
extern "C" __attribute__((noinline)) int bn_elf_symbols_probe_fn(int x) {
  asm volatile("" : "+r"(x));  // a body the compiler cannot fold away
  return x * 3 + 1;
}

namespace bottleneckd::elf_symbols_test {
namespace {

// The mapped range holding `addr` in this process.
MappedRange MappingOf(uint64_t addr) {
  ProcMaps maps;
  Status s = maps.Parse(testing::ReadFileOrDie("/proc/self/maps"));
  EXPECT_TRUE(s.ok()) << s.ToString();
  const MappedRange* r = maps.Find(addr);
  EXPECT_NE(r, nullptr) << std::hex << addr;
  return r != nullptr ? *r : MappedRange{};
}

// What `command` printed; "" when it could not run.
std::string Output(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

// The build ID binutils' readelf prints for `path` ("    Build ID: 93ac...").
std::string ReadelfBuildId(const std::string& path) {
  const std::string notes = Output("readelf -n '" + path + "' 2>/dev/null");
  const size_t at = notes.find("Build ID: ");
  if (at == std::string::npos) return "";
  const size_t from = at + 10;
  return notes.substr(from, notes.find('\n', from) - from);
}

std::string SelfExe() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

uint64_t ProbeAddress() {
  int (*volatile fn)(int) = &bn_elf_symbols_probe_fn;  // volatile: the address as it runs
  EXPECT_EQ(fn(2), 7);
  return reinterpret_cast<uint64_t>(fn);
}

TEST(ElfSymbols, NamesAFunctionOfThisBinaryThroughItsMapping) {
  const uint64_t addr = ProbeAddress();
  const MappedRange r = MappingOf(addr);
  EXPECT_TRUE(r.executable);
  EXPECT_EQ(r.path, SelfExe());
  ElfSymbols syms;
  ASSERT_OK(syms.Load("/proc/self/exe"));
  EXPECT_TRUE(syms.from_symtab());  // the test binary is not stripped
  EXPECT_FALSE(syms.from_debug_file());
  EXPECT_GT(syms.size(), 100u);
  EXPECT_EQ(syms.NameAtFileOffset(FileOffsetOf(r, addr)), "bn_elf_symbols_probe_fn");
  EXPECT_EQ(syms.NameAtFileOffset(FileOffsetOf(r, addr + 1)), "bn_elf_symbols_probe_fn");
}

// getpid's address in the libc this process runs on. dlsym in libc's own
// scope: the function libc defines, never a PLT stub of this executable
// (what &getpid is in a non-PIE build).
uint64_t GetpidAddress() {
  void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(libc, nullptr) << ::dlerror();
  if (libc == nullptr) return 0;
  const uint64_t addr = reinterpret_cast<uint64_t>(::dlsym(libc, "getpid"));
  ::dlclose(libc);
  return addr;
}

TEST(ElfSymbols, NamesALibcFunctionAsNmListsIt) {
  const uint64_t addr = GetpidAddress();
  ASSERT_NE(addr, 0u);
  const MappedRange r = MappingOf(addr);
  ASSERT_NE(r.path.find("libc.so.6"), std::string::npos) << r.path;
  // `nm -D` of Debian 12's libc (glibc 2.36) lists two names at getpid's
  // address, and the libc6-dbg debug file's .symtab two more:
  //   00000000000d54e0 T __getpid@@GLIBC_2.2.5   (GLOBAL)
  //   00000000000d54e0 W getpid@@GLIBC_2.2.5     (WEAK)
  //   __GI___getpid, __GI_getpid                 (LOCAL, .symtab only)
  // The GLOBAL one wins over the WEAK and the LOCAL ones, however the
  // symbols are ordered: "__getpid", with the debug file or without.
  ElfSymbols dynsym;
  ASSERT_OK(dynsym.Load(r.path, ""));  // no debug root: .dynsym only
  EXPECT_FALSE(dynsym.from_symtab());
  EXPECT_EQ(dynsym.NameAtFileOffset(FileOffsetOf(r, addr)), "__getpid");
  EXPECT_EQ(dynsym.NameAtFileOffset(FileOffsetOf(r, addr + 1)), "__getpid");
  ElfSymbols with_debug;
  ASSERT_OK(with_debug.Load(r.path));
  EXPECT_EQ(with_debug.NameAtFileOffset(FileOffsetOf(r, addr)), "__getpid");
  EXPECT_EQ(with_debug.build_id(), ReadelfBuildId(r.path));
}

// libc6-dbg's .symtab spells a function with two versions with the version
// ("clock_nanosleep@@GLIBC_2.17", "clock_nanosleep@GLIBC_2.2.5"): the name is
// the function's, as nm -D prints it, in either table.
TEST(ElfSymbols, AVersionedSymbolIsNamedWithoutItsVersion) {
  void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libc, nullptr) << ::dlerror();
  const uint64_t addr = reinterpret_cast<uint64_t>(::dlsym(libc, "clock_nanosleep"));
  ::dlclose(libc);
  ASSERT_NE(addr, 0u);
  const MappedRange r = MappingOf(addr);
  for (bool debug : {false, true}) {
    ElfSymbols syms;
    ASSERT_OK(debug ? syms.Load(r.path) : syms.Load(r.path, ""));
    const std::string name(syms.NameAtFileOffset(FileOffsetOf(r, addr)));
    EXPECT_NE(name.find("clock_nanosleep"), std::string::npos) << name;
    EXPECT_EQ(name.find('@'), std::string::npos) << (debug ? "with the debug file: " : ".dynsym: ") << name;
  }
}

TEST(ElfSymbols, BuildIdIsReadelfs) {
  // binutils' readelf (an ELF reader of its own, not libelf) as the truth.
  const std::string expected = ReadelfBuildId(SelfExe());
  ASSERT_FALSE(expected.empty()) << "readelf -n printed no build ID for " << SelfExe();
  ElfSymbols syms;
  ASSERT_OK(syms.Load("/proc/self/exe"));
  EXPECT_EQ(syms.build_id(), expected);
}

TEST(ElfSymbols, FollowsTheBuildIdToASeparateDebugFile) {
  // What Debian ships: the installed binary stripped to .dynsym, its .symtab
  // in ROOT/.build-id/NN/REST.debug (objcopy --only-keep-debug).
  testing::TempDir tmp;
  const std::string stripped = tmp.path() + "/stripped";
  const std::string debug = tmp.path() + "/debug.tmp";
  ASSERT_EQ(std::system(("objcopy --strip-all '" + SelfExe() + "' '" + stripped + "'").c_str()), 0);
  ASSERT_EQ(std::system(("objcopy --only-keep-debug '" + SelfExe() + "' '" + debug + "'").c_str()), 0);
  const std::string id = ReadelfBuildId(stripped);
  ASSERT_GT(id.size(), 2u);
  const uint64_t addr = ProbeAddress();
  const MappedRange r = MappingOf(addr);

  const std::string root = tmp.path() + "/debug-root";
  ElfSymbols syms;
  ASSERT_OK(syms.Load(stripped, root));  // no debug file yet
  EXPECT_FALSE(syms.from_symtab());
  EXPECT_FALSE(syms.from_debug_file());
  // Stripped, the executable keeps only what it exports, not the probe.
  EXPECT_EQ(syms.NameAtFileOffset(FileOffsetOf(r, addr)), "");

  // A debug file of another build at that path is passed over.
  const std::string debug_dir = root + "/.build-id/" + id.substr(0, 2);
  std::filesystem::create_directories(debug_dir);
  const std::string debug_path = debug_dir + "/" + id.substr(2) + ".debug";
  std::filesystem::copy_file(MappingOf(GetpidAddress()).path, debug_path);
  ASSERT_OK(syms.Load(stripped, root));
  EXPECT_FALSE(syms.from_debug_file());

  std::filesystem::rename(debug, debug_path);
  ASSERT_OK(syms.Load(stripped, root));
  EXPECT_TRUE(syms.from_debug_file());
  EXPECT_TRUE(syms.from_symtab());
  EXPECT_EQ(syms.build_id(), id);
  // The stripped file's program headers, the debug file's names.
  EXPECT_EQ(syms.NameAtFileOffset(FileOffsetOf(r, addr)), "bn_elf_symbols_probe_fn");
  EXPECT_EQ(syms.NameAtFileOffset(FileOffsetOf(r, addr + 1)), "bn_elf_symbols_probe_fn");
}

TEST(ElfSymbols, FilesThatAreNotElf) {
  testing::TempDir tmp;
  ElfSymbols syms;
  Status s = syms.Load(tmp.path() + "/missing");
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();

  tmp.Write("text", "#!/bin/sh\necho not an ELF file\n");
  s = syms.Load(tmp.path() + "/text");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("not an ELF file"), std::string::npos) << s.ToString();

  tmp.Write("empty", "");
  s = syms.Load(tmp.path() + "/empty");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  s = syms.Load(tmp.path());  // a directory
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(syms.size(), 0u);
}

TEST(ElfSymbols, TruncatedBinaryIsAnErrorNotACrash) {
  const std::string exe = testing::ReadFileOrDie("/proc/self/exe");
  testing::TempDir tmp;
  for (size_t cut : {size_t{16}, size_t{63}, size_t{100}, size_t{4096}, exe.size() / 2}) {
    tmp.Write("cut", exe.substr(0, cut));
    ElfSymbols syms;
    Status s = syms.Load(tmp.path() + "/cut");
    EXPECT_TRUE(s.IsCorruption()) << cut << ": " << s.ToString();
    EXPECT_EQ(syms.size(), 0u) << cut;
    EXPECT_EQ(syms.build_id(), "") << cut;
    s = syms.LoadImage(std::string_view(exe).substr(0, cut));
    EXPECT_TRUE(s.IsCorruption()) << cut << ": " << s.ToString();
  }
}

TEST(ElfSymbols, VariantsItCannotRead) {
  std::string ident(64, '\0');
  std::memcpy(ident.data(), ELFMAG, SELFMAG);
  ident[EI_CLASS] = 3;  // neither ELFCLASS32 nor ELFCLASS64
  ident[EI_DATA] = ELFDATA2LSB;
  ident[EI_VERSION] = EV_CURRENT;
  ElfSymbols syms;
  Status s = syms.LoadImage(ident);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  ident[EI_CLASS] = ELFCLASS64;
  ident[EI_DATA] = 7;
  s = syms.LoadImage(ident);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

// ---- Images written here: each rule with names the test chose.

struct TestSym {
  const char* name;
  uint64_t value, size;
  unsigned char bind, type;
  uint16_t shndx = 1;  // .text
};

// The ELF structures of one class, and a machine of that class.
template <class EhdrT, class PhdrT, class ShdrT, class SymT, unsigned char kClassV, uint16_t kMachineV>
struct ElfTypes {
  using Ehdr = EhdrT;
  using Phdr = PhdrT;
  using Shdr = ShdrT;
  using Sym = SymT;
  static constexpr unsigned char kClass = kClassV;
  static constexpr uint16_t kMachine = kMachineV;
};
using Elf64Types = ElfTypes<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr, Elf64_Sym, ELFCLASS64, EM_X86_64>;
using Elf32Types = ElfTypes<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr, Elf32_Sym, ELFCLASS32, EM_386>;

constexpr uint64_t kTextAddr = 0x401000, kTextOffset = 0x1000, kTextSize = 0x1000;

// A shared object of one PT_LOAD (file 0x1000..0x2000 at 0x401000, all
// .text) with the given .symtab and .dynsym (each left out when empty) and
// a build ID note.
template <class T>
std::string WriteElf(const std::vector<TestSym>& symtab, const std::vector<TestSym>& dynsym,
                     const std::string& build_id) {
  std::string out(kTextOffset + kTextSize, '\0');
  auto append = [&out](const std::string& bytes, size_t align) {
    out.resize((out.size() + align - 1) / align * align, '\0');
    const size_t at = out.size();
    out += bytes;
    return at;
  };
  auto bytes_of = [](const auto& v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); };
  std::vector<typename T::Shdr> sections(1);  // [0]: the null section
  typename T::Shdr text{};
  text.sh_type = SHT_PROGBITS;
  text.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
  text.sh_addr = kTextAddr;
  text.sh_offset = kTextOffset;
  text.sh_size = kTextSize;
  text.sh_addralign = 16;
  sections.push_back(text);
  auto add_table = [&](const std::vector<TestSym>& syms, uint32_t type) {
    if (syms.empty()) return;
    std::string strings(1, '\0'), table(sizeof(typename T::Sym), '\0');
    for (const TestSym& s : syms) {
      typename T::Sym e{};
      e.st_name = static_cast<uint32_t>(strings.size());
      strings += s.name;
      strings += '\0';
      e.st_value = s.value;
      e.st_size = s.size;
      e.st_info = ELF64_ST_INFO(s.bind, s.type);  // the same for ELF32
      e.st_shndx = s.shndx;
      table += bytes_of(e);
    }
    typename T::Shdr tab{}, str{};
    tab.sh_type = type;
    tab.sh_offset = append(table, 8);
    tab.sh_size = table.size();
    tab.sh_link = static_cast<uint32_t>(sections.size() + 1);  // its strings come next
    tab.sh_info = 1;
    tab.sh_entsize = sizeof(typename T::Sym);
    tab.sh_addralign = 8;
    str.sh_type = SHT_STRTAB;
    str.sh_offset = append(strings, 1);
    str.sh_size = strings.size();
    str.sh_addralign = 1;
    sections.push_back(tab);
    sections.push_back(str);
  };
  add_table(symtab, SHT_SYMTAB);
  add_table(dynsym, SHT_DYNSYM);
  Elf64_Nhdr nh{4, static_cast<uint32_t>(build_id.size()), NT_GNU_BUILD_ID};  // the same for ELF32
  std::string note = bytes_of(nh) + std::string("GNU\0", 4) + build_id;
  note.resize((note.size() + 3) / 4 * 4, '\0');
  typename T::Shdr note_section{};
  note_section.sh_type = SHT_NOTE;
  note_section.sh_flags = SHF_ALLOC;
  note_section.sh_offset = append(note, 4);
  note_section.sh_size = note.size();
  note_section.sh_addralign = 4;
  sections.push_back(note_section);
  std::string headers;
  for (const auto& sh : sections) headers += bytes_of(sh);
  const size_t shoff = append(headers, 8);

  typename T::Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = T::kClass;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = T::kMachine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof eh;
  eh.e_shoff = shoff;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof(typename T::Phdr);
  eh.e_phnum = 1;
  eh.e_shentsize = sizeof(typename T::Shdr);
  eh.e_shnum = static_cast<uint16_t>(sections.size());
  typename T::Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_offset = kTextOffset;
  ph.p_vaddr = ph.p_paddr = kTextAddr;
  ph.p_filesz = ph.p_memsz = kTextSize;
  ph.p_align = 0x1000;
  out.replace(0, sizeof eh, bytes_of(eh));
  out.replace(sizeof eh, sizeof ph, bytes_of(ph));
  return out;
}

const std::vector<TestSym> kRules = {
    // Three names at one address, each binding.
    {"alias_local", 0x401000, 0x10, STB_LOCAL, STT_FUNC},
    {"alias_weak", 0x401000, 0x10, STB_WEAK, STT_FUNC},
    {"alias_global_but_longer", 0x401000, 0x10, STB_GLOBAL, STT_FUNC},
    // Three GLOBAL names at one address: the shorter, then the first.
    {"zz", 0x401100, 0x20, STB_GLOBAL, STT_FUNC},
    {"aaa", 0x401100, 0x20, STB_GLOBAL, STT_FUNC},
    {"yy", 0x401100, 0x20, STB_GLOBAL, STT_FUNC},
    // Size 0 (assembly without .size): up to the next symbol.
    {"asm_entry", 0x401200, 0, STB_GLOBAL, STT_FUNC},
    // A second entry point inside a larger function.
    {"outer", 0x401300, 0x100, STB_GLOBAL, STT_FUNC},
    {"inner", 0x401340, 0x10, STB_GLOBAL, STT_FUNC},
    {"ifunc_resolver", 0x401500, 0x20, STB_GLOBAL, STT_GNU_IFUNC},
    // Not functions, or not defined, or at address 0: never names.
    {"data_object", 0x401600, 0x10, STB_GLOBAL, STT_OBJECT},
    {"a_label", 0x401700, 0, STB_LOCAL, STT_NOTYPE},
    {"undefined_fn", 0x401800, 0x10, STB_GLOBAL, STT_FUNC, SHN_UNDEF},
    {"at_zero", 0, 0x10, STB_GLOBAL, STT_FUNC},
    {"", 0x401900, 0x10, STB_GLOBAL, STT_FUNC},
    // The last symbol, size 0: up to the end of .text.
    {"last_asm", 0x401f00, 0, STB_GLOBAL, STT_FUNC},
};

template <class T>
void CheckRules() {
  ElfSymbols syms;
  ASSERT_OK(syms.LoadImage(WriteElf<T>(kRules, {}, std::string("\xde\xad\xbe\xef\x01\x02\x03\x04", 8))));
  EXPECT_EQ(syms.build_id(), "deadbeef01020304");
  EXPECT_TRUE(syms.from_symtab());
  EXPECT_EQ(syms.size(), 7u);  // alias groups count once; the 5 non-functions out
  EXPECT_EQ(syms.NameAtAddress(0x401000), "alias_global_but_longer");
  EXPECT_EQ(syms.NameAtAddress(0x40100f), "alias_global_but_longer");
  EXPECT_EQ(syms.NameAtAddress(0x401010), "");  // past its size
  EXPECT_EQ(syms.NameAtAddress(0x400fff), "");
  EXPECT_EQ(syms.NameAtAddress(0x401110), "yy");
  EXPECT_EQ(syms.NameAtAddress(0x401200), "asm_entry");
  EXPECT_EQ(syms.NameAtAddress(0x4012ff), "asm_entry");
  EXPECT_EQ(syms.NameAtAddress(0x401300), "outer");
  EXPECT_EQ(syms.NameAtAddress(0x401344), "inner");
  EXPECT_EQ(syms.NameAtAddress(0x401350), "outer");  // past inner, still in outer
  EXPECT_EQ(syms.NameAtAddress(0x4013ff), "outer");
  EXPECT_EQ(syms.NameAtAddress(0x401400), "");
  EXPECT_EQ(syms.NameAtAddress(0x401510), "ifunc_resolver");
  EXPECT_EQ(syms.NameAtAddress(0x401608), "");
  EXPECT_EQ(syms.NameAtAddress(0x401700), "");
  EXPECT_EQ(syms.NameAtAddress(0x401808), "");
  EXPECT_EQ(syms.NameAtAddress(0x401908), "");
  EXPECT_EQ(syms.NameAtAddress(0x401fff), "last_asm");
  EXPECT_EQ(syms.NameAtAddress(0x402000), "");  // .text ends
  // File offsets through the one PT_LOAD: offset 0x1000 is 0x401000.
  EXPECT_EQ(syms.NameAtFileOffset(0x1344), "inner");
  EXPECT_EQ(syms.NameAtFileOffset(0x1000), "alias_global_but_longer");
  EXPECT_EQ(syms.NameAtFileOffset(0xfff), "");   // before the PT_LOAD's file bytes
  EXPECT_EQ(syms.NameAtFileOffset(0x2000), "");  // after them
}

TEST(ElfSymbols, AliasSizeAndNestingRules64) { CheckRules<Elf64Types>(); }
TEST(ElfSymbols, AliasSizeAndNestingRules32) { CheckRules<Elf32Types>(); }

TEST(ElfSymbols, AliasChoiceDoesNotDependOnOrder) {
  std::vector<TestSym> reversed(kRules.rbegin(), kRules.rend());
  ElfSymbols syms;
  ASSERT_OK(syms.LoadImage(WriteElf<Elf64Types>(reversed, {}, "")));
  EXPECT_EQ(syms.NameAtAddress(0x401000), "alias_global_but_longer");
  EXPECT_EQ(syms.NameAtAddress(0x401110), "yy");
  EXPECT_EQ(syms.build_id(), "");  // an empty note is no build ID
}

TEST(ElfSymbols, SymtabBeforeDynsym) {
  const std::vector<TestSym> full = {{"exported", 0x401000, 0x10, STB_GLOBAL, STT_FUNC},
                                     {"static_helper", 0x401100, 0x10, STB_LOCAL, STT_FUNC}};
  const std::vector<TestSym> exported = {{"exported", 0x401000, 0x10, STB_GLOBAL, STT_FUNC}};
  ElfSymbols syms;
  ASSERT_OK(syms.LoadImage(WriteElf<Elf64Types>(full, exported, "\x01\x02")));
  EXPECT_TRUE(syms.from_symtab());
  EXPECT_EQ(syms.NameAtAddress(0x401100), "static_helper");
  ASSERT_OK(syms.LoadImage(WriteElf<Elf64Types>({}, exported, "\x01\x02")));
  EXPECT_FALSE(syms.from_symtab());
  EXPECT_EQ(syms.size(), 1u);
  EXPECT_EQ(syms.NameAtAddress(0x401000), "exported");
  EXPECT_EQ(syms.NameAtAddress(0x401100), "");
}

TEST(ElfSymbols, RelocatableObjectsHaveNoAddresses) {
  std::string image = WriteElf<Elf64Types>(kRules, {}, "");
  Elf64_Half rel = ET_REL;
  std::memcpy(image.data() + offsetof(Elf64_Ehdr, e_type), &rel, sizeof rel);
  ElfSymbols syms;
  Status s = syms.LoadImage(image);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(syms.size(), 0u);
}

TEST(ElfSymbols, ASymbolNameOutsideItsStringTableIsCorruption) {
  std::vector<TestSym> one = {{"f", 0x401000, 0x10, STB_GLOBAL, STT_FUNC}};
  std::string image = WriteElf<Elf64Types>(one, {}, "");
  // Symbol 1's st_name (the first field of the entry after the null one) at
  // the .symtab's offset, right after .text's page.
  const size_t sym1 = kTextOffset + kTextSize + sizeof(Elf64_Sym);
  const uint32_t far = 0x7fffffff;
  std::memcpy(image.data() + sym1, &far, sizeof far);
  ElfSymbols syms;
  Status s = syms.LoadImage(image);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace bottleneckd::elf_symbols_test
