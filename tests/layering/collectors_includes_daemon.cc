// Wrong way: a collector reaching into the daemon. Must not compile.
#include "daemon/config.h"
