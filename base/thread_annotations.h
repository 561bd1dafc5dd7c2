// Clang thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
// They declare which lock guards a member and which locks a function needs,
// takes or must not hold; clang's -Wthread-safety (on in every clang build, an
// error with BOTTLENECKD_WERROR) then checks each access at compile time. On
// other compilers they expand to nothing. The lock type they are written for is
// base/mutex.h's Mutex:
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_);
//   void BumpLocked() EXCLUSIVE_LOCKS_REQUIRED(mu_);
//   void Bump() LOCKS_EXCLUDED(mu_);
#pragma once

#if defined(__clang__)
#define BN_THREAD_ATTRIBUTE(x) __attribute__((x))
#else
#define BN_THREAD_ATTRIBUTE(x)
#endif

// On a class: its objects are locks ("mutex" names the kind in messages).
#ifndef CAPABILITY
#define CAPABILITY(name) BN_THREAD_ATTRIBUTE(capability(name))
#endif

// On a class: an RAII guard that holds what its constructor acquires until
// it is destroyed.
#ifndef SCOPED_CAPABILITY
#define SCOPED_CAPABILITY BN_THREAD_ATTRIBUTE(scoped_lockable)
#endif

// On a data member: read and written only with lock `x` held.
#ifndef GUARDED_BY
#define GUARDED_BY(x) BN_THREAD_ATTRIBUTE(guarded_by(x))
#endif

// On a pointer member: what it points to is used only with `x` held (the
// pointer itself is not guarded).
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) BN_THREAD_ATTRIBUTE(pt_guarded_by(x))
#endif

// On a lock member: the locks it is taken before / after when both are held
// (checked only by clang's -Wthread-safety-beta).
#ifndef ACQUIRED_BEFORE
#define ACQUIRED_BEFORE(...) BN_THREAD_ATTRIBUTE(acquired_before(__VA_ARGS__))
#endif
#ifndef ACQUIRED_AFTER
#define ACQUIRED_AFTER(...) BN_THREAD_ATTRIBUTE(acquired_after(__VA_ARGS__))
#endif

// On a function: the caller must hold these locks, exclusively / at least shared.
#ifndef EXCLUSIVE_LOCKS_REQUIRED
#define EXCLUSIVE_LOCKS_REQUIRED(...) BN_THREAD_ATTRIBUTE(requires_capability(__VA_ARGS__))
#endif
#ifndef SHARED_LOCKS_REQUIRED
#define SHARED_LOCKS_REQUIRED(...) BN_THREAD_ATTRIBUTE(requires_shared_capability(__VA_ARGS__))
#endif

// On a function: the caller must not hold these locks (the function takes them).
#ifndef LOCKS_EXCLUDED
#define LOCKS_EXCLUDED(...) BN_THREAD_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#endif

// On a function: it returns with these locks held / released (no argument on a
// lock's own method: the lock itself).
#ifndef ACQUIRE
#define ACQUIRE(...) BN_THREAD_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#endif
#ifndef ACQUIRE_SHARED
#define ACQUIRE_SHARED(...) BN_THREAD_ATTRIBUTE(acquire_shared_capability(__VA_ARGS__))
#endif
#ifndef RELEASE
#define RELEASE(...) BN_THREAD_ATTRIBUTE(release_capability(__VA_ARGS__))
#endif
#ifndef RELEASE_SHARED
#define RELEASE_SHARED(...) BN_THREAD_ATTRIBUTE(release_shared_capability(__VA_ARGS__))
#endif

// On a function returning bool: holds the lock when it returned `result`.
#ifndef TRY_ACQUIRE
#define TRY_ACQUIRE(...) BN_THREAD_ATTRIBUTE(try_acquire_capability(__VA_ARGS__))
#endif

// On a function: after it returns the analysis takes these locks as held (a
// run-time check, or a callback known to run under the lock).
#ifndef ASSERT_CAPABILITY
#define ASSERT_CAPABILITY(x) BN_THREAD_ATTRIBUTE(assert_capability(x))
#endif

// On a function: it returns a reference to lock `x`.
#ifndef RETURN_CAPABILITY
#define RETURN_CAPABILITY(x) BN_THREAD_ATTRIBUTE(lock_returned(x))
#endif

// On a function: not checked. Say on the same line why the analysis cannot
// follow it.
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS BN_THREAD_ATTRIBUTE(no_thread_safety_analysis)
#endif
