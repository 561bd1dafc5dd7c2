// The daemon's side of the control socket: the start, stop and status
// requests it serves on its RunTracker (docs/control-socket.md), and the
// client's question for the daemon's run store.
#pragma once

#include <string>
#include <string_view>

#include "analysis/loss_tolerance.h"
#include "analysis/snapshot.h"
#include "control/control_socket.h"
#include "runs/run_tracker.h"

namespace bottleneckd {

// Serves one control request. `live` gives status its current verdict;
// loss is the verdict's loss tolerance (for the MLFRR of segments).
ControlResponse HandleControlRequest(const ControlRequest& req, RunTracker* runs, const SnapshotStore* live,
                                     const LossTolerance& loss);

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

}  // namespace bottleneckd
