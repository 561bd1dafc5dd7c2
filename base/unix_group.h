// Unix groups by name, for what a group may open (the control socket's
// runs.control_group).
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace bottleneckd {

// The gid of group `name` ("" the effective gid) and a name for messages;
// InvalidArgument "unknown group 'x'" when the group database has no such group.
Status ResolveGroup(const std::string& name, gid_t* gid, std::string* shown);

}  // namespace bottleneckd
