// Wrong way: the runs stage reaching into the control socket (it lived in
// runs/ before the control stage). Must not compile.
#include "control/control_socket.h"
