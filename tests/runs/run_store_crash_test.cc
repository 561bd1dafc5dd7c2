// The run store under failure: a run whose writer was SIGKILLed is
// recovered from its timeline, a finished run survives SIGKILL right after
// FinishRun, a full database loses no finished run and stores the run whose
// begin failed once there is room, an unprivileged user reads a store
// no writer has open in a directory it may not write, and one who opens
// another user's store for writing is told so at the open.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "runs/run_store.h"
#include "tests/runs/run_store_test_util.h"

namespace bottleneckd::run_store_test::run_store_crash_test {
namespace {

using RunStoreCrashTest = RunStoreTest;

TEST_F(RunStoreCrashTest, RecoversAnActiveRunAfterItsWriterWasKilled) {
  // Ten windows: SettleWindows(10) = 5 are left out of the figures.
  std::vector<TimelinePoint> pts;
  for (int i = 0; i < 10; ++i) {
    TimelinePoint p = Point(100 + i, 0.1);
    p.received_packets_per_second = 10;
    p.bus_utilisation = 0.9;
    p.label = Bound::kNone;
    pts.push_back(p);
  }
  const double busy[] = {0.90, 0.92, 0.94, 0.96, 0.98};
  const double delivered[] = {1000, 2000, 3000, 4000, 5000};
  const double idle[] = {0.10, 0.08, 0.06, 0.04, 0.02};
  const double bus[] = {0.1, 0.3, 0.2, 0.4, 0.25};
  const double conf[] = {0.8, 0.6, 0.8, 0.6, 0.9};
  for (int i = 0; i < 5; ++i) {
    TimelinePoint& p = pts[5 + i];
    p.cpu_busy = busy[i];
    p.received_packets_per_second = delivered[i];
    p.soaker_idle = idle[i];
    p.bus_utilisation = bus[i];
    p.first_losing_rung = i < 3 ? "socket" : "none";
    p.label = i < 4 ? Bound::kCpu : Bound::kInterrupt;
    p.resource = "cpu1";
    p.confidence = conf[i];
  }
  InChildThenSigkill([&](std::unique_ptr<RunStore>* store) {
    if (!RunStore::Open(DbPath(), false, store).ok()) return 2;
    RunStore* s = store->get();
    RunReport r = MakeRun("killed", 99.5);
    r.end = 0;
    if (!s->BeginRun(&r).ok()) return 3;
    for (const TimelinePoint& p : pts) {
      if (!s->AppendPoint(r.id, p).ok()) return 4;
    }
    return 0;
  });

  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 1u);
  RunQuery q;
  q.name = "killed";
  std::vector<RunReport> runs;
  ASSERT_OK(s->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  const RunReport& r = runs[0];
  EXPECT_EQ(r.state, "interrupted");
  EXPECT_EQ(r.start, 99.5);
  EXPECT_EQ(r.end, 109);  // the last point's t
  EXPECT_EQ(r.windows, 5u);
  EXPECT_NEAR(r.cpu_busy, 0.94, 1e-12);                    // (0.90 + ... + 0.98) / 5
  EXPECT_NEAR(r.received_packets_per_second, 3000, 1e-9);  // 15000 / 5
  ASSERT_TRUE(r.soaker_idle.has_value());
  EXPECT_NEAR(*r.soaker_idle, 0.06, 1e-12);                  // 0.30 / 5
  EXPECT_EQ(r.bus_utilisation, std::optional<double>(0.4));  // highest settled window, not 0.9
  EXPECT_EQ(r.first_losing_rung, "socket");                  // 3 of 5 windows
  EXPECT_EQ(r.verdict.label, Bound::kCpu);                   // 4 of 5 windows
  EXPECT_EQ(r.verdict.resource, "cpu1");
  EXPECT_EQ(r.verdict_windows, 4u);
  EXPECT_NEAR(r.verdict.confidence, 0.7, 1e-12);  // (0.8 + 0.6 + 0.8 + 0.6) / 4
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(r.id, &tl));
  EXPECT_EQ(tl.size(), 10u);

  // Recovery is once: the next open finds nothing active.
  s.reset();
  s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 0u);
  EXPECT_EQ(Fetch(s.get(), r.id).state, "interrupted");
}

TEST_F(RunStoreCrashTest, ASecondWriterLeavesTheFirstWritersActiveRunAlone) {
  // Two `bottleneckd run` commands without a daemon: the second opens the
  // store while the first's run is active; that run is alive, not recovered.
  auto first = OpenOrDie(DbPath());
  RunReport r = MakeRun("alive", 10);
  ASSERT_OK(first->BeginRun(&r));
  ASSERT_OK(first->AppendPoint(r.id, Point(11, 0.5)));
  auto second = OpenOrDie(DbPath());
  EXPECT_EQ(second->recovered(), 0u);
  RunQuery q;
  q.id = r.id;
  std::vector<RunReport> runs;
  ASSERT_OK(second->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "active");
  // Once no writer is left, the next open recovers it.
  first.reset();
  second.reset();
  auto third = OpenOrDie(DbPath());
  EXPECT_EQ(third->recovered(), 1u);
  ASSERT_OK(third->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "interrupted");
}

TEST_F(RunStoreCrashTest, AFinishedRunSurvivesSigkillRightAfterFinishRun) {
  RunReport want = MakeRun("finished then killed", 10);
  want.end = 13;
  want.cpu_busy = 0.5;
  want.verdict.label = Bound::kBus;
  want.verdict.resource = "em2 (0000:03:02.0)";
  want.verdict.evidence = {"bus em2 at 91 %"};
  want.exit_code = 0;
  InChildThenSigkill([&](std::unique_ptr<RunStore>* store) {
    if (!RunStore::Open(DbPath(), false, store).ok()) return 2;
    RunStore* s = store->get();
    RunReport r = want;
    if (!s->BeginRun(&r).ok()) return 3;
    std::vector<TimelinePoint> pts = {Point(11), Point(12), Point(13)};
    for (const TimelinePoint& p : pts) {
      if (!s->AppendPoint(r.id, p).ok()) return 4;
    }
    r.state = "finished";
    return s->FinishRun(&r, pts).ok() ? 0 : 5;
  });
  // Killed before closing: the commits are still only in the WAL.
  ASSERT_TRUE(std::filesystem::exists(DbPath() + "-wal"));
  EXPECT_GT(std::filesystem::file_size(DbPath() + "-wal"), 0u);

  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 0u);
  want.id = 1;  // the first run of a new store
  want.state = "finished";
  ExpectSameRun(Fetch(s.get(), 1), want);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(1, &tl));
  ASSERT_EQ(tl.size(), 3u);
  EXPECT_EQ(tl[2].t, 13);
}

TEST_F(RunStoreCrashTest, AFullDatabaseLosesNoFinishedRun) {
  std::vector<RunReport> done;
  std::vector<TimelinePoint> pts;
  for (int i = 0; i < 20; ++i) pts.push_back(Point(i, 0.01 * i));
  RunReport filler = MakeRun("filler", 1000);
  RunReport late = MakeRun("late", 2000);  // its begin "failed": id 0
  std::vector<TimelinePoint> late_pts;
  for (int i = 0; i < 50; ++i) late_pts.push_back(Point(2000 + i));
  std::vector<TimelinePoint> filler_pts;
  {
    auto s = OpenOrDie(DbPath());
    for (int i = 0; i < 3; ++i) {
      RunReport r = MakeRun("done " + std::to_string(i), 100 * i);
      r.verdict.evidence = {"sentence " + std::to_string(i)};
      ASSERT_OK(s->BeginRun(&r));
      for (const TimelinePoint& p : pts) ASSERT_OK(s->AppendPoint(r.id, p));
      ASSERT_OK(s->FinishRun(&r, pts));
      done.push_back(r);
    }
    ASSERT_OK(s->BeginRun(&filler));
    // SQLite never caps below the current size: no page can be added.
    ASSERT_OK(s->LimitPagesForTest(1));
    Status err;
    for (int i = 0; i < 100000 && err.ok(); ++i) {
      filler_pts.push_back(Point(1000 + i));
      err = s->AppendPoint(filler.id, filler_pts.back());
    }
    ASSERT_FALSE(err.ok()) << "the capped database never filled up";
    EXPECT_EQ(err.code(), Status::Code::kIOError) << err.ToString();
    EXPECT_NE(err.message().find("full"), std::string::npos) << err.message();
    EXPECT_NE(err.message().find(DbPath()), std::string::npos) << err.message();

    Status fin = s->FinishRun(&filler, filler_pts);
    EXPECT_EQ(fin.code(), Status::Code::kIOError) << fin.ToString();
    EXPECT_EQ(filler.state, "active");  // unchanged on failure
    fin = s->FinishRun(&late, late_pts);
    EXPECT_EQ(fin.code(), Status::Code::kIOError) << fin.ToString();
    EXPECT_NE(fin.message().find("full"), std::string::npos) << fin.message();
    EXPECT_EQ(late.id, 0);  // rolled back: still never stored

    // Every finished run is still there, whole.
    for (const RunReport& r : done) {
      ExpectSameRun(Fetch(s.get(), r.id), r);
      std::vector<TimelinePoint> tl;
      ASSERT_OK(s->Timeline(r.id, &tl));
      EXPECT_EQ(tl.size(), pts.size());
    }
    RunQuery by_name;
    by_name.name = "late";
    EXPECT_TRUE(Names(s.get(), by_name).empty());
  }
  // Reopened, the cap is gone: the filler is recovered, the late run stored.
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 1u);
  RunReport f = Fetch(s.get(), filler.id);
  EXPECT_EQ(f.state, "interrupted");
  EXPECT_EQ(f.end, filler_pts[filler_pts.size() - 2].t);  // the last point that was stored
  ASSERT_OK(s->FinishRun(&late, late_pts));
  EXPECT_GT(late.id, filler.id);
  EXPECT_EQ(Fetch(s.get(), late.id).state, "finished");
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(late.id, &tl));
  ASSERT_EQ(tl.size(), 50u);
  EXPECT_EQ(tl.front().t, 2000);
  EXPECT_EQ(tl.back().t, 2049);
  for (const RunReport& r : done) ExpectSameRun(Fetch(s.get(), r.id), r);
}

TEST_F(RunStoreCrashTest, AnUnprivilegedReaderReadsAClosedStoreInAReadOnlyDirectory) {
  // The daemon (root) has stopped: no -wal, no -shm. A user who may not
  // create files in the state directory still reads the runs.
  RunReport r = MakeRun("read by a user", 1);
  {
    auto w = OpenOrDie(DbPath());
    ASSERT_OK(w->FinishRun(&r, {Point(2)}));
  }
  ASSERT_FALSE(std::filesystem::exists(DbPath() + "-wal"));
  namespace fs = std::filesystem;
  fs::permissions(DbPath(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir_.path(), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Root ignores directory permissions: read as nobody instead.
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    std::unique_ptr<RunStore> s;
    Status open = RunStore::Open(DbPath(), /*read_only=*/true, &s);
    if (!open.ok()) {
      fprintf(stderr, "%s\n", open.ToString().c_str());
      _exit(3);
    }
    std::vector<RunReport> runs;
    if (!s->ListRuns(RunQuery(), &runs).ok() || runs.size() != 1 || runs[0].name != "read by a user") _exit(4);
    std::vector<TimelinePoint> tl;
    if (!s->Timeline(runs[0].id, &tl).ok() || tl.size() != 1 || tl[0].t != 2) _exit(5);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  fs::permissions(dir_.path(), fs::perms::owner_all);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: setuid, 3: open, 4: runs, 5: timeline";
  EXPECT_FALSE(std::filesystem::exists(DbPath() + "-shm"));
}

TEST_F(RunStoreCrashTest, AStoreThisUserCannotWriteIsRefusedAtTheOpen) {
  // Another daemon (root here) has the store open and is writing it; its
  // files are 0644. A second daemon as nobody must hear at start that it
  // cannot write, not at its first window run a minute later.
  auto w = OpenOrDie(DbPath());
  RunReport r = MakeRun("written by root", 1);
  ASSERT_OK(w->FinishRun(&r, {Point(2)}));
  namespace fs = std::filesystem;
  const fs::perms r_all = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  const fs::perms rx_all = r_all | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  for (const std::string& f : {DbPath(), DbPath() + "-wal", DbPath() + "-shm", DbPath() + ".lock"})
    if (fs::exists(f)) fs::permissions(f, r_all | fs::perms::owner_write);
  fs::permissions(dir_.path(), rx_all | fs::perms::owner_write);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    std::unique_ptr<RunStore> s;
    Status open = RunStore::Open(DbPath(), /*read_only=*/false, &s);
    std::string msg = open.ToString();
    if (write(pipefd[1], msg.data(), msg.size()) < 0) _exit(4);
    _exit(open.ok() ? 3 : 0);
  }
  close(pipefd[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof(buf))) > 0;) msg.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  fs::permissions(dir_.path(), fs::perms::owner_all);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: setuid, 3: the open succeeded: " << msg;
  EXPECT_NE(msg.find("is not writable by uid 65534"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mode 0644"), std::string::npos) << msg;
  // The writer is unharmed.
  RunReport more = MakeRun("still written", 3);
  EXPECT_OK(w->FinishRun(&more, {}));
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_crash_test
