// The daemon's answers to `follow` (control/control_handler.h): a run
// follows a process of its asker (the command `bottleneckd run` started),
// which the threads collector then reads as a target (RunTracker::
// FollowedPids); a process of another user, one that does not exist, or a
// run that is not active is refused with the reason.
#include "control/control_handler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::control_handler_test {
namespace {

ControlResponse Ask(RunTracker* runs, const std::string& verb, std::vector<std::string> args, uid_t uid) {
  ControlRequest req;
  req.verb = verb;
  req.args = std::move(args);
  req.pid = getpid();
  req.uid = uid;
  return HandleControlRequest(req, runs, nullptr, LossTolerance{1, 0});
}

RunTrackerOptions NoWindows() {
  RunTrackerOptions o;
  o.window_seconds = 0;
  return o;
}

TEST(HandleControlRequest, ARunFollowsItsAskersProcessUntilItStops) {
  RunTracker runs(nullptr, NoWindows());
  const std::string self = std::to_string(getpid());
  EXPECT_EQ(Ask(&runs, "follow", {"echo", self}, getuid()).error, "no active run named 'echo'");
  ASSERT_TRUE(Ask(&runs, "start", {"echo", "./udpecho"}, getuid()).ok);
  ControlResponse r = Ask(&runs, "follow", {"echo", self}, getuid());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.body, "following\techo\t" + self + "\n");
  ASSERT_TRUE(Ask(&runs, "follow", {"echo", self}, getuid()).ok);  // once
  EXPECT_EQ(runs.FollowedPids(), std::vector<int>{getpid()});
  ASSERT_TRUE(Ask(&runs, "stop", {"echo", "0"}, getuid()).ok);
  EXPECT_TRUE(runs.FollowedPids().empty());
}

TEST(HandleControlRequest, FollowRefusesAnotherUsersProcessAndAMissingOne) {
  RunTracker runs(nullptr, NoWindows());
  ASSERT_TRUE(Ask(&runs, "start", {"echo"}, getuid()).ok);
  // pid 1 is root's: a user who is not root may not have it followed.
  EXPECT_EQ(Ask(&runs, "follow", {"echo", "1"}, 4242).error,
            "process 1 is not yours (uid 0): a run follows only its asker's processes");
  EXPECT_EQ(Ask(&runs, "follow", {"echo", "4194304"}, getuid()).error, "no process 4194304");
  EXPECT_TRUE(runs.FollowedPids().empty());
  // Root may.
  EXPECT_TRUE(Ask(&runs, "follow", {"echo", "1"}, 0).ok);
  EXPECT_EQ(runs.FollowedPids(), std::vector<int>{1});
}

TEST(RunTrackerFollow, BoundedPerRunAndMergedAcrossRuns) {
  RunTracker runs(nullptr, NoWindows());
  ASSERT_OK(runs.Start("a", "command", "", 100));
  ASSERT_OK(runs.Start("b", "command", "", 100));
  for (size_t i = 0; i < RunTracker::kMaxFollowedPids; ++i) ASSERT_OK(runs.Follow("a", 1000 + static_cast<int>(i)));
  Status s = runs.Follow("a", 5000);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  ASSERT_OK(runs.Follow("b", 1000));  // the same process in two runs: once
  ASSERT_OK(runs.Follow("b", 7));
  std::vector<int> pids = runs.FollowedPids();
  EXPECT_EQ(pids.size(), RunTracker::kMaxFollowedPids + 1);
  EXPECT_EQ(pids.front(), 7);
  ASSERT_OK(runs.Discard("a"));
  EXPECT_EQ(runs.FollowedPids(), (std::vector<int>{7, 1000}));
  EXPECT_TRUE(runs.Follow("a", 9).IsNotFound());
}

}  // namespace
}  // namespace bottleneckd::control_handler_test
