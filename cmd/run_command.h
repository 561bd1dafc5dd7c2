// Runs from outside the sampling loop: the control requests the daemon
// serves on its Unix socket (start, stop, status on its RunTracker), and
// `bottleneckd run [--name N] -- CMD...`, which wraps a benchmark command as
// a run: through the running daemon when its socket answers, else by
// sampling in its own process. Either way the run's report is printed to
// stderr when CMD ends (FinishedRunText, exporters/report/report.h: what
// `--report --run NAME` prints for it), and CMD's exit code is bottleneckd's (125 when
// bottleneckd itself fails before CMD runs, 126 when CMD cannot be executed,
// 127 when it is not found, 128+N when a signal N killed it).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cmd/flags.h"
#include "daemon/config.h"
#include "daemon/snapshot.h"
#include "runs/control_socket.h"
#include "runs/run_store.h"
#include "runs/run_tracker.h"

namespace bottleneckd {

inline constexpr int kRunExitFailed = 125, kRunExitCannotExecute = 126, kRunExitNotFound = 127;

// Serves one control request. `live` gives status its current verdict;
// loss is the verdict's loss tolerance (for the MLFRR of segments).
ControlResponse HandleControlRequest(const ControlRequest& req, RunTracker* runs, const SnapshotStore* live,
                                     const LossTolerance& loss);

// Opens STATE_DIR/runs.db for the daemon (creating the directory), logging
// what it recovered; null, with the reason logged, when it cannot.
std::unique_ptr<RunStore> OpenDaemonRunStore(const Config& config);

// The last line of a finished run's text: where it is stored and the command
// that reports it again from there ("stored in DIR/runs.db; again: bottleneckd
// report --path.state=DIR --run 'NAME'"), or that it is not stored.
std::string StoredRunLine(const RunTracker& runs, const std::string& name);

// The run store named by a status answer's "store<TAB>PATH" line (what
// HandleControlRequest writes). NotFound when the daemon keeps its runs in
// memory only ("(memory only)"), InvalidArgument when no such line is there.
Status RunStoreOfStatus(std::string_view body, std::string* runs_db);

// The run store of the daemon listening on `socket`, asked with a status
// request (`bottleneckd report --control.socket PATH`). The error says why
// there is none: nothing listens there, the socket refuses us, the daemon
// keeps its runs in memory only; each with what to do instead.
Status DaemonRunStore(const std::string& socket, std::string* runs_db);

// `bottleneckd run`: returns the process's exit code.
int RunCommand(const Config& config, const Flags& flags);

// The run's default name: the command line, control characters replaced,
// cut to the protocol's limit.
std::string DefaultRunName(const std::vector<std::string>& argv);

}  // namespace bottleneckd
