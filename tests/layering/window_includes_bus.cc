// Wrong way: window/ comes before bus/ (the bus model reads windows). Must not compile.
#include "bus/bus_model.h"
