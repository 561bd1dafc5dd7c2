// Tests of HostFs::ReadProcKept (collectors/host_fs.h): on the live host the
// descriptor stays open and each call reads the table afresh from offset 0;
// a descriptor that cannot be read is replaced; under fixture roots it is
// ReadProc and keeps nothing open.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "collectors/host_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::host_fs_kept_test {
namespace {

using testing::TempDir;

// The value of "ctxt N" in /proc/stat text (context switches since boot).
uint64_t Ctxt(const std::string& stat) {
  size_t at = stat.find("\nctxt ");
  EXPECT_NE(at, std::string::npos) << stat;
  return at == std::string::npos ? 0 : std::stoull(stat.substr(at + 6));
}

TEST(ReadProcKept, KeepsTheDescriptorAndReadsTheTableAfresh) {
  HostFs fs(HostRoots{});
  ASSERT_TRUE(fs.live());
  UniqueFd kept;
  std::string first, second, fresh;
  ASSERT_OK(fs.ReadProcKept("stat", &kept, &first));
  ASSERT_GE(kept.get(), 0);
  const int fd = kept.get();
  EXPECT_EQ(first.rfind("cpu ", 0), 0u) << first.substr(0, 80);
  ASSERT_EQ(first.back(), '\n');
  // Context switches happen between the reads (this thread sleeps): the
  // kept descriptor must show the kernel's new count, not the text it
  // read first.
  ::usleep(20000);
  ASSERT_OK(fs.ReadProcKept("stat", &kept, &second));
  EXPECT_EQ(kept.get(), fd) << "the same descriptor, not reopened";
  EXPECT_GT(Ctxt(second), Ctxt(first));
  ASSERT_OK(fs.ReadProc("stat", &fresh));
  EXPECT_GE(Ctxt(fresh), Ctxt(second));
}

TEST(ReadProcKept, AnUnreadableDescriptorIsReplaced) {
  HostFs fs(HostRoots{});
  TempDir dir;
  // A directory's descriptor: pread fails (EISDIR), so the call opens the
  // table afresh and succeeds.
  UniqueFd kept(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_GE(kept.get(), 0);
  std::string out;
  ASSERT_OK(fs.ReadProcKept("stat", &kept, &out));
  EXPECT_EQ(out.rfind("cpu ", 0), 0u);
  ASSERT_GE(kept.get(), 0);
}

TEST(ReadProcKept, AbsentTableIsNotFoundAndKeepsNothing) {
  HostFs fs(HostRoots{});
  UniqueFd kept;
  std::string out = "old";
  Status s = fs.ReadProcKept("no-such-table", &kept, &out);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_LT(kept.get(), 0);
}

TEST(ReadProcKept, FixtureRootsReadLikeReadProcAndKeepNothing) {
  TempDir dir;
  dir.Write("proc/stat", "cpu  1 2 3 4\nctxt 7\n");
  HostFs fs(HostRoots{.procfs = dir.path() + "/proc", .sysfs = dir.path() + "/sys", .ethtool = ""});
  ASSERT_FALSE(fs.live());
  UniqueFd kept;
  std::string out;
  ASSERT_OK(fs.ReadProcKept("stat", &kept, &out));
  EXPECT_EQ(out, "cpu  1 2 3 4\nctxt 7\n");
  EXPECT_LT(kept.get(), 0);
  // A replay replaces the file: the next read sees the new one.
  dir.Write("proc/stat", "cpu  5 6 7 8\nctxt 9\n");
  ASSERT_OK(fs.ReadProcKept("stat", &kept, &out));
  EXPECT_EQ(out, "cpu  5 6 7 8\nctxt 9\n");
  dir.Write("proc/cut", "cpu 1 2");
  EXPECT_TRUE(fs.ReadProcKept("cut", &kept, &out).IsCorruption());
}

}  // namespace
}  // namespace bottleneckd::host_fs_kept_test
