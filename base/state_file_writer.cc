#include "base/state_file_writer.h"

#include "base/log.h"
#include "base/state_file.h"

namespace bottleneckd {

StateFileWriter::StateFileWriter() = default;

StateFileWriter::~StateFileWriter() {
  {
    MutexLock l(&mu_);
    stop_ = true;
  }
  work_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void StateFileWriter::Submit(std::string dir, std::string name, std::string text) {
  {
    MutexLock l(&mu_);
    pending_[{std::move(dir), std::move(name)}] = std::move(text);
  }
  // Started at the first write, not at construction: a thread inherits its
  // creator's capabilities, and the daemon drops capture's (CAP_NET_RAW)
  // after it is built (integration capture_live_test: "a daemon thread
  // still holds CAP_NET_RAW"). Submit is called from one thread.
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  work_.NotifyAll();
}

void StateFileWriter::Flush() {
  MutexLock l(&mu_);
  while (!pending_.empty() || writing_) done_.Wait(&mu_);
}

int StateFileWriter::written() const {
  MutexLock l(&mu_);
  return written_;
}

int StateFileWriter::failed() const {
  MutexLock l(&mu_);
  return failed_;
}

void StateFileWriter::Loop() {
  for (;;) {
    std::pair<std::string, std::string> file;
    std::string text;
    {
      MutexLock l(&mu_);
      while (pending_.empty() && !stop_) work_.Wait(&mu_);
      if (pending_.empty()) return;  // stopped, nothing left
      auto next = pending_.extract(pending_.begin());
      file = std::move(next.key());
      text = std::move(next.mapped());
      writing_ = true;
    }
    const Status s = WriteStateFile(file.first, file.second, text);
    if (!s.ok())
      Log(LogLevel::kWarn, "state file not written", {{"file", file.first + "/" + file.second}, {"err", s.ToString()}});
    {
      MutexLock l(&mu_);
      writing_ = false;
      ++(s.ok() ? written_ : failed_);
    }
    done_.NotifyAll();
  }
}

}  // namespace bottleneckd
