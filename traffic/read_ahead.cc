#include "traffic/read_ahead.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace bottleneckd {

ReadAhead::ReadAhead(int fd, uint64_t offset, size_t chunk)
    : fd_(fd), chunk_(std::max<size_t>(chunk, 1)), offset_(offset), thread_([this] { Run(); }) {}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ReadAhead::Run() {
  for (size_t i = 0;; i ^= 1) {
    Slot& s = slots_[i];
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || s.state == State::kFree; });
      if (stop_) return;
    }
    // A free slot is this thread's alone until it is marked full.
    s.bytes.resize(chunk_);
    ssize_t n;
    do {
      n = ::pread(fd_, s.bytes.data(), chunk_, static_cast<off_t>(offset_));
    } while (n < 0 && errno == EINTR);
    const int err = n < 0 ? errno : 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s.n = n > 0 ? static_cast<size_t>(n) : 0;
      s.error = err;
      s.state = State::kFull;
    }
    cv_.notify_all();
    if (n <= 0) return;  // the end, or an error: nothing more to read
    offset_ += static_cast<uint64_t>(n);
  }
}

std::span<const uint8_t> ReadAhead::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  Slot& held = slots_[next_ ^ 1];
  if (held.state == State::kHeld) {
    held.state = State::kFree;  // the chunk handed out last goes back to the thread
    cv_.notify_all();
  }
  Slot& s = slots_[next_];
  cv_.wait(lock, [&] { return s.state == State::kFull; });
  if (s.n == 0) {
    error_ = s.error;
    return {};  // stays full and next: every later call ends here too
  }
  s.state = State::kHeld;
  next_ ^= 1;
  return {s.bytes.data(), s.n};
}

}  // namespace bottleneckd
