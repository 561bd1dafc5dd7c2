// Wrong way: analysis/ takes a Window and returns a verdict; it must not know
// the Snapshot the daemon publishes. Must not compile.
#include "daemon/snapshot.h"
