#include "tests/support/test_util.h"

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

}  // namespace bottleneckd::testing
