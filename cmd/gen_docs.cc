// bottleneckd-gen-docs MANPAGE COMPLETION: writes bottleneckd(8) and the
// bash completion, both rendered from the command line's description
// (cmd/manpage.h). Run by the build (cmd/CMakeLists.txt); not installed.
#include <cstdio>
#include <fstream>
#include <string>

#include "cmd/flags.h"
#include "cmd/manpage.h"
#include "exporters/prometheus/metrics.h"

namespace {

bool WriteFile(const char* path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  std::fprintf(stderr, "bottleneckd-gen-docs: cannot write %s\n", path);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bottleneckd-gen-docs MANPAGE COMPLETION\n");
    return 2;
  }
  const bottleneckd::CliDescription cli = bottleneckd::DescribeCli();
  bool ok = WriteFile(argv[1], bottleneckd::RenderManPage(cli, bottleneckd::GetBuildInfo().version));
  ok = WriteFile(argv[2], bottleneckd::RenderBashCompletion(cli)) && ok;
  return ok ? 0 : 1;
}
