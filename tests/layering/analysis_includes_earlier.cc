// Right way: analysis/ may use every stage before it. Must compile.
#include "analysis/verdict.h"
#include "base/status.h"
#include "bus/bus_model.h"
#include "collectors/cpu.h"
#include "sources/sample.h"
#include "traffic/traffic.h"
#include "window/window.h"
