// The daemon's keeping of the learned interrupt delivery cost across
// restarts (daemon/delivery_cost_file.h).
#include "base/log.h"
#include "daemon/daemon.h"

namespace bottleneckd {

void Daemon::RestoreDeliveryCost() {
  DeliveryCostHost host;
  Status s = ReadDeliveryCostHost(*fs_, &host);
  if (!s.ok()) {
    delivery_host_.reset();
    Log(LogLevel::kInfo, "interrupt delivery cost: the host could not be read; learned afresh each start, not kept",
        {{"err", s.ToString()}});
    return;
  }
  delivery_host_ = host;
  if (config_.soaker.state_dir.empty()) return;
  std::string note;
  s = LoadDeliveryCost(config_.soaker.state_dir, host, &pipeline_->analyzer().delivery_cost(), &note);
  if (!s.ok()) {
    Log(LogLevel::kWarn, "interrupt delivery cost: the kept file is unreadable; learning again",
        {{"err", s.ToString()}});
    return;
  }
  Log(LogLevel::kInfo, "interrupt delivery cost", {{"state", note}});
}

void Daemon::KeepDeliveryCost() {
  windows_since_kept_ = 0;
  if (!delivery_host_ || config_.soaker.state_dir.empty()) return;
  // Written by the state writer's thread: an fsync a stalled disk holds
  // for seconds must not hold the tick (base/state_file_writer.h).
  state_writer_.Submit(config_.soaker.state_dir, kDeliveryCostFile,
                       FormatDeliveryCost(*delivery_host_, pipeline_->analyzer().delivery_cost()));
}

}  // namespace bottleneckd
