// The daemon's side of the control socket (control/control_handler.h).
#include "control/control_handler.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/clock.h"
#include "base/log.h"
#include "exporters/report/report.h"

namespace bottleneckd {
namespace {

ControlResponse Error(const std::string& e) {
  ControlResponse r;
  r.error = e;
  return r;
}

}  // namespace

ControlResponse HandleControlRequest(const ControlRequest& req, RunTracker* runs, const SnapshotStore* live,
                                     const LossTolerance& loss) {
  if (req.verb == "start") {
    const std::string command = req.args.size() > 1 ? req.args[1] : "";
    Status s = runs->Start(req.args[0], command.empty() ? "control" : "command", command, WallSeconds());
    if (!s.ok()) return Error(s.message());
    Log(LogLevel::kInfo, "run requested",
        {{"name", req.args[0]}, {"pid", std::to_string(req.pid)}, {"uid", std::to_string(req.uid)}});
    ControlResponse r;
    r.ok = true;
    r.body = "started\t" + req.args[0] + "\n";
    return r;
  }
  if (req.verb == "follow") {
    const int pid = static_cast<int>(std::strtol(req.args[1].c_str(), nullptr, 10));
    // The asker's own processes only: following one reads its threads'
    // stacks, descriptors and addresses into the run's report.
    struct stat st;
    const std::string proc = "/proc/" + req.args[1];
    if (stat(proc.c_str(), &st) != 0) return Error("no process " + req.args[1]);
    if (req.uid != 0 && st.st_uid != req.uid)
      return Error("process " + req.args[1] + " is not yours (uid " + std::to_string(st.st_uid) +
                   "): a run follows only its asker's processes");
    Status s = runs->Follow(req.args[0], pid);
    if (!s.ok()) return Error(s.message());
    ControlResponse r;
    r.ok = true;
    r.body = "following\t" + req.args[0] + "\t" + req.args[1] + "\n";
    return r;
  }
  if (req.verb == "stop") {
    std::optional<int> exit_code;
    if (req.args.size() > 1) exit_code = static_cast<int>(std::strtol(req.args[1].c_str(), nullptr, 10));
    RunReport run;
    std::vector<RunReport> segments;
    Status s = runs->Stop(req.args[0], exit_code, WallSeconds(), &run, &segments);
    if (!s.ok()) return Error(s.message());
    ControlResponse r;
    r.ok = true;
    r.body = FinishedRunText(run, segments, loss) + StoredRunLine(*runs, req.args[0]);
    if (runs->unsaved())
      r.body += "warning: the run store cannot be written (" + runs->store_path() +
                "); the run is kept in memory and retried\n";
    return r;
  }
  if (req.verb == "discard") {
    Status s = runs->Discard(req.args[0]);
    if (!s.ok()) return Error(s.message());
    ControlResponse r;
    r.ok = true;
    r.body = "discarded\t" + req.args[0] + "\n";
    return r;
  }
  // status
  ControlResponse r;
  r.ok = true;
  for (const RunReport& a : runs->Active())
    r.body += "run\t" + a.name + "\t" + a.source + "\t" + std::to_string(static_cast<int64_t>(a.start)) + "\t" +
              std::to_string(a.windows) + "\n";
  auto snap = live ? live->Latest() : nullptr;
  if (snap && snap->verdict) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", snap->verdict->confidence);
    r.body +=
        std::string("verdict\t") + BoundName(snap->verdict->label) + "\t" + snap->verdict->resource + "\t" + b + "\n";
  }
  r.body += "store\t" + (runs->has_store() ? runs->store_path() : std::string("(memory only)")) + "\n";
  return r;
}

std::string StoredRunLine(const RunTracker& runs, const std::string& name) {
  if (!runs.has_store()) return "not stored (no run store)\n";
  const std::string path = runs.store_path();
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  // Single-quoted for a shell, a quote inside closed, escaped and reopened.
  auto quote = [](const std::string& v) {
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  return "stored in " + path + "; again: bottleneckd report --path.state=" + quote(dir) + " --run " + quote(name) +
         "\n";
}

Status RunStoreOfStatus(std::string_view body, std::string* runs_db) {
  constexpr std::string_view kStore = "store\t";
  for (size_t at = 0; at < body.size();) {
    size_t end = body.find('\n', at);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kStore.size()) != kStore) continue;
    std::string_view path = line.substr(kStore.size());
    if (path == "(memory only)") return Status::NotFound("it keeps its runs in memory only (no run store)");
    if (path.empty()) break;
    *runs_db = std::string(path);
    return Status::OK();
  }
  return Status::InvalidArgument("its status answer names no run store (a 'store' line)");
}

Status DaemonRunStore(const std::string& socket, std::string* runs_db) {
  ControlRequest req;
  req.verb = "status";
  ControlResponse resp;
  Status s = ControlCall(socket, req, &resp, 5);
  if (s.IsNotFound()) return s;  // "no bottleneckd is listening on PATH (is the daemon running?)"
  BN_RETURN_IF_ERROR(s.WithContext("asking the daemon on " + socket + " for its run store"));
  if (!resp.ok) return Status::IOError("the daemon on " + socket + " refused status: " + resp.error);
  return RunStoreOfStatus(resp.body, runs_db).WithContext("the daemon on " + socket);
}

}  // namespace bottleneckd
