// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// clang thread-safety annotations (base/thread_annotations.h), so that shared
// state is declared GUARDED_BY(mu_) and clang checks every access to it:
//   mutable Mutex mu_;
//   bool stop_ GUARDED_BY(mu_) = false;
//   void Stop() LOCKS_EXCLUDED(mu_) { MutexLock l(&mu_); stop_ = true; cv_.NotifyAll(); }
// Each of the three is itself thread-safe (that is what it is for); none can
// be copied or moved.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.h"

namespace bottleneckd {

class CondVar;

// An exclusive, non-recursive lock: a thread that locks it twice deadlocks,
// one that unlocks it without holding it is undefined behaviour (as with
// std::mutex).
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis that the calling thread holds this lock where it cannot
  // see it taken (a callback that runs under it). Checks nothing at run time.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex from its construction to the end of its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable waited on with a Mutex held. The waits release it while
// they block and hold it again when they return; every thread waiting at the
// same time must pass the same Mutex. Wake-ups may be spurious: wait in a loop
// on the condition itself, which the analysis then checks like any other
// access under the lock:
//   MutexLock l(&mu_);
//   while (!ready_) cv_.Wait(&mu_);
// Notifying needs no lock.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Blocks until notified (or woken spuriously).
  void Wait(Mutex* mu) EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    cv_.wait(l);
    l.release();  // still held: the caller's
  }
  // Blocks until notified (or woken spuriously) or until `deadline`; false when
  // it returned because the deadline passed.
  template <typename Clock, typename Duration>
  bool WaitUntil(Mutex* mu, const std::chrono::time_point<Clock, Duration>& deadline) EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    const std::cv_status s = cv_.wait_until(l, deadline);
    l.release();
    return s == std::cv_status::no_timeout;
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace bottleneckd
