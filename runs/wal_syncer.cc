#include "runs/wal_syncer.h"

#include <linux/capability.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/log.h"

namespace bottleneckd {

Status WalSyncer::Start(const std::string& path, std::unique_ptr<WalSyncer>* out) {
  std::unique_ptr<WalSyncer> s(new WalSyncer());
  s->path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &s->db_, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    std::string err = s->db_ ? sqlite3_errmsg(s->db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(s->db_);
    s->db_ = nullptr;
    return Status::IOError(path + ": opening the run store's sync connection: " + err);
  }
  sqlite3_busy_timeout(s->db_, 1000);
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  *out = std::move(s);
  return Status::OK();
}

WalSyncer::~WalSyncer() {
  {
    MutexLock l(&mu_);
    stop_ = true;
    cv_.NotifyAll();
  }
  if (thread_.joinable()) thread_.join();
  sqlite3_close_v2(db_);
}

void WalSyncer::Request() {
  MutexLock l(&mu_);
  ++requested_;
  cv_.NotifyAll();
}

bool WalSyncer::Flush(double timeout_seconds) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_seconds));
  MutexLock l(&mu_);
  const uint64_t want = ++requested_;
  cv_.NotifyAll();
  while (covered_ < want)
    if (!cv_.WaitUntil(&mu_, deadline) && covered_ < want) return false;
  return true;
}

uint64_t WalSyncer::checkpoints() const {
  MutexLock l(&mu_);
  return checkpoints_;
}

int WalSyncer::last_rc() const {
  MutexLock l(&mu_);
  return last_rc_;
}

int WalSyncer::Checkpoint() {
  int log = 0, done = 0;
  return sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
}

void WalSyncer::Loop() {
  // Capabilities are per thread on Linux, and this one starts with the run
  // store, before the daemon drops its capture capabilities on its own
  // thread (capture_live_test checks every thread); it needs none: the
  // store's files are its user's.
  pthread_setname_np(pthread_self(), "bn-walsync");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3]{};
  if (syscall(SYS_capset, &header, none) != 0)
    Log(LogLevel::kWarn, "run store: the sync thread could not drop its capabilities", {{"err", std::strerror(errno)}});
  const auto idle =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(kIdleSeconds));
  for (;;) {
    bool stopping = false;
    {
      MutexLock l(&mu_);
      const auto deadline = std::chrono::steady_clock::now() + idle;
      while (!stop_ && requested_ == covered_)
        if (!cv_.WaitUntil(&mu_, deadline)) break;  // the idle checkpoint
      stopping = stop_;
      started_ = requested_;
    }
    int rc = Checkpoint();
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
      Log(LogLevel::kWarn, "run store: checkpoint failed; retried", {{"path", path_}, {"err", sqlite3_errstr(rc)}});
    {
      MutexLock l(&mu_);
      covered_ = started_;
      ++checkpoints_;
      last_rc_ = rc;
      cv_.NotifyAll();
    }
    if (stopping) return;
  }
}

}  // namespace bottleneckd
