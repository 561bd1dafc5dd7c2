// Wrong way: the daemon reaching into the control socket, which comes after it
// (its handler drives the daemon's runs). Must not compile.
#include "control/control_socket.h"
