#include "tests/test_util.h"

#include <fcntl.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace bottleneckd::testing {

std::string FixtureDir(const std::string& scenario) { return std::string(BOTTLENECKD_FIXTURES) + "/" + scenario; }

HostRoots FixtureRoots(const std::string& scenario) {
  HostRoots r;
  std::string d = FixtureDir(scenario);
  r.procfs = d + "/proc";
  r.sysfs = d + "/sys";
  r.ethtool = d + "/ethtool";
  return r;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::abort();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string NormalizeVolatileMetrics(const std::string& metrics) {
  static const std::regex kVolatile(
      R"(^(bottleneckd_collector_duration_seconds\{[^}]*\}|bottleneckd_samples_total|bottleneckd_last_sample_timestamp_seconds|process_[a-z_]+) .*$)");
  static const std::regex kRevision(R"(revision="[^"]*")");
  std::istringstream in(metrics);
  std::string line, out;
  while (std::getline(in, line)) {
    line = std::regex_replace(line, kVolatile, "$1 <volatile>");
    line = std::regex_replace(line, kRevision, "revision=\"<revision>\"");
    out += line + "\n";
  }
  return out;
}

int RunPromtoolCheckMetrics(const std::string& metrics, std::string* output) {
  TempDir dir;
  dir.Write("m.txt", metrics);
  std::string cmd = "promtool check metrics < " + dir.path() + "/m.txt 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p)) *output += buf;
  int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/bottleneckd-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void TempDir::Write(const std::string& rel, const std::string& content) const {
  std::filesystem::path p = std::filesystem::path(path_) / rel;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
}

const Status* FakeFs::Fault(std::string_view rel) const {
  for (const auto& [part, status] : faults_)
    if (rel.find(part) != std::string_view::npos) return &status;
  return nullptr;
}

Status FakeFs::ReadProc(std::string_view rel, std::string* out) const {
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadProc(rel, out);
}

Status FakeFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (Counted(rel)) ++calls.read_sys;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadSys(rel, out, max_bytes);
}

Status FakeFs::ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (const Status* f = Fault(rel)) return *f;
  const bool config = rel.size() >= 7 && rel.substr(rel.size() - 7) == "/config";
  return HostFs::ReadSysPrefix(rel, out,
                               unprivileged_pci_config && config ? std::min<size_t>(max_bytes, 64) : max_bytes);
}

Status FakeFs::OpenSys(std::string_view rel, UniqueFd* out) const {
  if (Counted(rel)) ++calls.open_sys;
  if (const Status* f = Fault(rel)) return *f;
  if (!unreadable_open.empty() && rel.find(unreadable_open) != std::string_view::npos) {
    int fd = ::open(SysPath(rel).c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno(errno, SysPath(rel));
    *out = UniqueFd(fd);
    return Status::OK();
  }
  return HostFs::OpenSys(rel, out);
}

Status FakeFs::ListProc(std::string_view rel, std::vector<std::string>* names) const {
  if (rel.empty()) ++calls.list_proc_root;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ListProc(rel, names);
}

Status FakeFs::ListSys(std::string_view rel, std::vector<std::string>* names) const {
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ListSys(rel, names);
}

Status FakeFs::ReadLinkSys(std::string_view rel, std::string* target) const {
  if (Counted(rel)) ++calls.read_link_sys;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadLinkSys(rel, target);
}

}  // namespace bottleneckd::testing
