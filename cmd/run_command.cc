// `bottleneckd run [--name N] -- CMD...` (cmd/run_command.h).
#include "cmd/run_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "daemon/daemon.h"
#include "exporters/report/report.h"
#include "runs/run_label.h"

namespace bottleneckd {
namespace {

volatile sig_atomic_t g_child = 0;

// SIGTERM/SIGHUP to `bottleneckd run` go on to the command, which decides;
// the run ends when it exits.
void Forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

std::string JoinArgs(const std::vector<std::string>& argv, size_t max) {
  std::string s;
  for (const std::string& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  if (s.size() > max) {
    s.resize(max);
    // Do not cut a UTF-8 sequence in half.
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
    if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80)) s.pop_back();
  }
  return s;
}

// Forks and execs argv; returns its exit code the shell's way. *exec_failed:
// whether the command never ran (the exec itself failed, which the child
// says through a close-on-exec pipe), whatever exit code it chose.
// `started` is called with its pid once the exec succeeded.
int Execute(const std::vector<std::string>& argv, bool* exec_failed, const std::function<void(pid_t)>& started) {
  *exec_failed = false;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "bottleneckd run: pipe: %s\n", std::strerror(errno));
    return kRunExitFailed;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "bottleneckd run: fork: %s\n", std::strerror(errno));
    return kRunExitFailed;
  }
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(args[0], args.data());
    int e = errno;
    ssize_t ignored = write(err_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(e == ENOENT ? kRunExitNotFound : kRunExitCannotExecute);
  }
  g_child = pid;
  close(err_pipe[1]);
  int exec_errno = 0;
  ssize_t n;
  do n = read(err_pipe[0], &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  close(err_pipe[0]);
  if (n == 0) started(pid);  // the pipe closed on exec
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    std::fprintf(stderr, "bottleneckd run: %s: %s\n", argv[0].c_str(), std::strerror(exec_errno));
    *exec_failed = true;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kRunExitFailed;
}

}  // namespace

std::string DefaultRunName(const std::vector<std::string>& argv) { return JoinArgs(argv, kControlMaxName); }

namespace {

// `run --join NAME` / `run --leave NAME`: one request to the daemon. A
// joined run needs the daemon: this process would stop sampling when it
// returns, so there is no in-process fallback.
int JoinOrLeave(const Config& config, const Flags& flags) {
  const bool join = !flags.run_join.empty();
  const std::string& name = join ? flags.run_join : flags.run_leave;
  const char* what = join ? "--join" : "--leave";
  if (config.runs.control_socket.empty()) {
    std::fprintf(stderr, "bottleneckd run %s: run control is off (runs.control_socket is \"\")\n", what);
    return kRunExitFailed;
  }
  ControlRequest req;
  req.verb = join ? "start" : "stop";
  req.args = {name};
  ControlResponse resp;
  Status s = ControlCall(config.runs.control_socket, req, &resp);
  if (!s.ok() || !resp.ok) {
    std::fprintf(stderr, "bottleneckd run %s: cannot %s run '%s': %s\n", what, join ? "start" : "stop", name.c_str(),
                 s.ok() ? resp.error.c_str() : s.message().c_str());
    return kRunExitFailed;
  }
  if (join) {
    std::fprintf(stderr,
                 "bottleneckd run: joined run '%s' (bottleneckd_run_active{run=\"%s\"}); end it with bottleneckd run "
                 "--leave '%s'\n",
                 name.c_str(), RunLabel(name).c_str(), name.c_str());
  } else {
    std::fprintf(stderr, "bottleneckd run '%s' (left):\n%s", name.c_str(), resp.body.c_str());
  }
  return 0;
}

// The run of a command that never started: nothing ran, so nothing is
// judged, printed or stored. The in-process tracker forgets it; a daemon is
// asked to (`discard`). Returns `code`, the exec failure's exit code.
int DiscardRun(const Config& config, const std::string& name, RunTracker* tracker, Daemon* daemon, std::thread* loop,
               int code) {
  Status s;
  if (daemon) {
    s = tracker->Discard(name);
    daemon->Stop();
    loop->join();
  } else {
    ControlRequest req;
    req.verb = "discard";
    req.args = {name};
    ControlResponse r;
    s = ControlCall(config.runs.control_socket, req, &r);
    if (s.ok() && !r.ok) s = Status::IOError(r.error);
  }
  if (!s.ok())
    std::fprintf(stderr, "bottleneckd run: the command did not start, and run '%s' could not be discarded: %s\n",
                 name.c_str(), s.message().c_str());
  return code;
}

}  // namespace

int RunCommand(const Config& config, const Flags& flags) {
  if (!flags.run_join.empty() || !flags.run_leave.empty()) return JoinOrLeave(config, flags);
  const std::string name = flags.run_name.empty() ? DefaultRunName(flags.run_argv) : flags.run_name;
  const std::string command = JoinArgs(flags.run_argv, kControlMaxRequest - kControlMaxName - 64);
  ControlRequest start;
  start.verb = "start";
  start.args = {name, command};
  std::string checked = FormatControlRequest(start);
  ControlRequest parsed;
  Status s = ParseControlRequest(checked, &parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd run: %s\n", s.message().c_str());
    return kRunExitFailed;
  }

  // Through the daemon, or in this process when no daemon listens.
  ControlResponse resp;
  s = ControlCall(config.runs.control_socket, start, &resp);
  std::unique_ptr<RunTracker> tracker;
  std::unique_ptr<SnapshotStore> snaps;
  std::unique_ptr<Daemon> daemon;
  std::thread loop;
  if (s.IsNotFound() || config.runs.control_socket.empty()) {
    std::fprintf(stderr, "bottleneckd run: %s; sampling in this process every %gs\n",
                 config.runs.control_socket.empty() ? "run control is off" : s.message().c_str(),
                 config.interval_seconds);
    RunTrackerOptions o = config.runs.tracker;
    o.window_seconds = 0;  // window runs are the daemon's
    tracker = std::make_unique<RunTracker>(OpenDaemonRunStore(config), o);
    snaps = std::make_unique<SnapshotStore>();
    daemon = std::make_unique<Daemon>(config, snaps.get(), tracker.get());
    daemon->PrepareSoaker();
    daemon->Tick();  // the first sample, before the run starts
    s = tracker->Start(name, "command", command, WallSeconds());
    if (!s.ok()) {
      std::fprintf(stderr, "bottleneckd run: %s\n", s.message().c_str());
      return kRunExitFailed;
    }
    loop = std::thread([&] { daemon->Run(); });
  } else if (!s.ok() || !resp.ok) {
    std::fprintf(stderr, "bottleneckd run: cannot start run '%s': %s\n", name.c_str(),
                 s.ok() ? resp.error.c_str() : s.message().c_str());
    return kRunExitFailed;
  }

  struct sigaction fwd = {}, old_term = {}, old_hup = {}, old_int = {}, ign = {};
  fwd.sa_handler = Forward;
  sigemptyset(&fwd.sa_mask);
  sigaction(SIGTERM, &fwd, &old_term);
  sigaction(SIGHUP, &fwd, &old_hup);
  // Ctrl-C reaches the command through the terminal's process group; the
  // wrapper stays to end the run.
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, &old_int);
  bool exec_failed = false;
  // The run follows its command (RunTracker::Follow): the threads collector
  // reads it as a target, so offcpu and the profile cover its threads
  // without collectors.threads.targets naming it.
  auto follow = [&](pid_t pid) {
    Status f;
    if (daemon) {
      f = tracker->Follow(name, pid);
    } else {
      ControlRequest req;
      req.verb = "follow";
      req.args = {name, std::to_string(pid)};
      ControlResponse r;
      f = ControlCall(config.runs.control_socket, req, &r);
      if (f.ok() && !r.ok) f = Status::IOError(r.error);
    }
    if (!f.ok())
      std::fprintf(stderr, "bottleneckd run: the run does not follow the command's threads (pid %d): %s\n",
                   static_cast<int>(pid), f.message().c_str());
  };
  int code = Execute(flags.run_argv, &exec_failed, follow);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  if (exec_failed) return DiscardRun(config, name, tracker.get(), daemon.get(), &loop, code);

  std::optional<int> exit_code;
  if (code < 256) exit_code = code;
  std::string text;
  if (daemon) {
    RunReport run;
    std::vector<RunReport> segments;
    Status stopped = tracker->Stop(name, exit_code, WallSeconds(), &run, &segments);
    daemon->Stop();
    loop.join();
    if (!stopped.ok()) {  // nothing else stops this tracker's runs; said rather than printing an empty run
      std::fprintf(stderr, "bottleneckd run: run '%s' ended but could not be closed: %s\n", name.c_str(),
                   stopped.message().c_str());
      return code;
    }
    text = FinishedRunText(run, segments, config.verdict.loss());
    text += StoredRunLine(*tracker, name);
  } else {
    ControlRequest stop;
    stop.verb = "stop";
    stop.args = {name, std::to_string(code > 255 ? kRunExitFailed : code)};
    ControlResponse r;
    Status ss = ControlCall(config.runs.control_socket, stop, &r);
    if (!ss.ok() || !r.ok) {
      std::fprintf(stderr, "bottleneckd run: run '%s' ended but the daemon did not close it: %s\n", name.c_str(),
                   ss.ok() ? r.error.c_str() : ss.message().c_str());
      return code;
    }
    text = r.body;
  }
  std::fprintf(stderr, "\nbottleneckd run '%s' (exit %d):\n%s", name.c_str(), code, text.c_str());
  return code;
}

std::unique_ptr<RunStore> OpenDaemonRunStore(const Config& config) {
  if (!config.runs.store) return nullptr;
  std::error_code ec;
  std::filesystem::create_directories(config.state_dir, ec);
  std::string path = config.state_dir + "/runs.db";
  std::unique_ptr<RunStore> store;
  Status s = ec ? Status::IOError("cannot create " + config.state_dir + ": " + ec.message())
                : RunStore::Open(path, false, &store);
  if (!s.ok()) {
    Log(LogLevel::kWarn, "run store unavailable; runs are kept in memory only", {{"err", s.message()}});
    return nullptr;
  }
  if (store->recovered())
    Log(LogLevel::kWarn, "runs interrupted by the daemon's last exit were recovered from their timelines",
        {{"count", std::to_string(store->recovered())}, {"path", path}});
  return store;
}

}  // namespace bottleneckd
