// Runs from outside the sampling loop: `bottleneckd run [--name N] -- CMD...`, which wraps a benchmark command as
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

#include "analysis/snapshot.h"
#include "cmd/flags.h"
#include "control/control_handler.h"
#include "daemon/config.h"
#include "runs/run_store.h"
#include "runs/run_tracker.h"

namespace bottleneckd {

inline constexpr int kRunExitFailed = 125, kRunExitCannotExecute = 126, kRunExitNotFound = 127;

// Opens STATE_DIR/runs.db for the daemon (creating the directory), logging
// what it recovered; null, with the reason logged, when it cannot.
std::unique_ptr<RunStore> OpenDaemonRunStore(const Config& config);

// `bottleneckd run`: returns the process's exit code.
int RunCommand(const Config& config, const Flags& flags);

// The run's default name: the command line, control characters replaced,
// cut to the protocol's limit.
std::string DefaultRunName(const std::vector<std::string>& argv);

}  // namespace bottleneckd
