// Wrong way: traffic/ (packets) stands beside collectors/, on base/ only. Must not compile.
#include "collectors/host_fs.h"
