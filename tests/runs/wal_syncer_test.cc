// WalSyncer (runs/wal_syncer.h): the run store's checkpoints (its fsyncs)
// on a thread of their own, so the daemon's tick never waits on the disk.
// Checked on real SQLite files: the writer commits without a checkpoint,
// the syncer's checkpoint takes every frame, a finished run asks for one,
// and closing waits for the last.
#include "runs/wal_syncer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "runs/run_store.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::wal_syncer_test {
namespace {

using testing::TempDir;

// (frames in the WAL, frames of it checkpointed) as a PASSIVE checkpoint of
// a fresh connection finds them.
std::pair<int, int> WalFrames(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  // A first read, so the connection has seen the file is in WAL mode.
  EXPECT_EQ(sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr), SQLITE_OK);
  int log = -1, done = -1;
  EXPECT_EQ(sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &done), SQLITE_OK);
  sqlite3_close_v2(db);
  return {log, done};
}

TEST(WalSyncer, ItsCheckpointTakesWhatTheWriterCommitted) {
  TempDir dir;
  const std::string path = dir.path() + "/w.db";
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w,
                         "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;"
                         "CREATE TABLE t (x)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::unique_ptr<WalSyncer> s;
  ASSERT_TRUE(WalSyncer::Start(path, &s).ok());
  for (int i = 0; i < 2000; ++i)  // 2000 commits: past the 1000 pages an automatic checkpoint would take
    ASSERT_EQ(sqlite3_exec(w, "INSERT INTO t VALUES (randomblob(2000))", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_TRUE(s->Flush(10));
  EXPECT_GE(s->checkpoints(), 1u);
  EXPECT_EQ(s->last_rc(), SQLITE_OK);
  auto [log, done] = WalFrames(path);
  EXPECT_GT(log, 1000);  // the writer never checkpointed: the WAL kept its frames
  EXPECT_EQ(done, log);  // and the syncer's checkpoint took every one
  sqlite3_close_v2(w);
}

TEST(WalSyncer, AFinishedRunIsCheckpointedOffTheWritersThread) {
  TempDir dir;
  auto store = OpenOrDie(dir.path() + "/runs.db");
  RunReport r = MakeRun("durable", 1700000000);
  ASSERT_OK(store->BeginRun(&r));
  ASSERT_OK(store->FinishRun(&r, {Point(1700000001), Point(1700000002)}));
  // The request was made by FinishRun; a flush after it returns once a
  // checkpoint covering it has ended.
  ASSERT_TRUE(store->Sync(10));
  auto [log, done] = WalFrames(dir.path() + "/runs.db");
  EXPECT_GT(log, 0);
  EXPECT_EQ(done, log);
  store.reset();  // the last checkpoint, then the close: no hang
  auto ro = OpenOrDie(dir.path() + "/runs.db", true);
  EXPECT_EQ(Fetch(ro.get(), r.id).name, "durable");
}

// Capabilities are per thread: the sync thread starts with the run store,
// before the daemon drops its capture capabilities, and drops all of its own
// (the fresh-clone CI of 144a52c: capture_live_test found a thread still
// holding CAP_NET_RAW).
TEST(WalSyncer, ItsThreadHoldsNoCapability) {
  TempDir dir;
  auto store = OpenOrDie(dir.path() + "/runs.db");
  ASSERT_TRUE(store->Sync(10));  // the thread is running
  int found = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string comm = testing::ReadFileOrDie(task.path().string() + "/comm");
    if (comm != "bn-walsync\n") continue;
    ++found;
    std::string status = testing::ReadFileOrDie(task.path().string() + "/status");
    size_t at = status.find("CapEff:\t");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(status.substr(at + 8, 16), "0000000000000000") << status.substr(at, 30);
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace bottleneckd::run_store_test::wal_syncer_test
