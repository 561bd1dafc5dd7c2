// Wrong way: an exporter reaching into the composition root. Must not compile.
#include "cmd/flags.h"
