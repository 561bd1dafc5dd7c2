// Wrong way: analysis/ takes a Window and returns a verdict (and the
// Snapshot the daemon publishes); it must not know the daemon's Config.
// Must not compile.
#include "daemon/config.h"
