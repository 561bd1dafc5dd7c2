// A suite of tests/analysis/ including a later stage's header: must not
// compile. The suites see the include roots of the stage they link and the
// tests/ root only (tests/CMakeLists.txt), as the stage's own sources do.
#include "daemon/config.h"
#include "tests/support/test_util.h"
