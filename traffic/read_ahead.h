// ReadAhead: a file read from an offset to its end in chunks by a second
// thread, one chunk ahead of the caller, so the kernel's page-cache copy of
// the next chunk runs while the caller works on this one (it was 16 % of a
// capture file's analysis on one thread, docs/performance.md). Two buffers:
// the chunk the caller holds and the one being filled.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace bottleneckd {

class ReadAhead {
 public:
  // Starts reading `fd` (not owned; it must stay open) at `offset`, `chunk`
  // bytes (at least 1) per pread.
  ReadAhead(int fd, uint64_t offset, size_t chunk);
  // Stops the reading thread, mid-file too, and waits for it.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The next chunk, in file order; empty at the end of the file or after a
  // failed read (error() then holds its errno). Valid until the next call.
  std::span<const uint8_t> Next();
  int error() const { return error_; }

 private:
  enum class State { kFree, kFull, kHeld };  // kFull: read, waiting for Next()
  struct Slot {
    std::vector<uint8_t> bytes;
    size_t n = 0;  // 0: the end of the file, or a failed read (error)
    int error = 0;
    State state = State::kFree;
  };
  void Run();

  const int fd_;
  const size_t chunk_;
  uint64_t offset_;  // of the thread's next read
  Slot slots_[2];    // filled in turn: 0, 1, 0, ...
  size_t next_ = 0;  // the slot Next() hands out next
  int error_ = 0;
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;  // last: starts after the fields it reads
};

}  // namespace bottleneckd
