// Path arithmetic on sysfs symlinks, shared by the collectors that follow
// them (netdev, interrupts, pci): sysfs stores relative targets
// (class/net/eth0 -> ../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0),
// resolved here by string arithmetic rather than realpath so fixture trees and
// recordings resolve the same way as the live /sys.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

// "0000:00:03.0": domain (4-8 hex digits), bus, device, function 0-7.
bool IsPciAddress(std::string_view s);

// Last / all but the last component of a '/'-separated path ("" when none).
std::string_view Basename(std::string_view path);
std::string_view Dirname(std::string_view path);

// Reads the symlink `rel` (sysfs-relative) and resolves its relative target
// against the link's directory: the result is sysfs-relative
// ("devices/pci0000:00/0000:00:03.0"). NotSupported for an absolute target,
// NotFound for one that climbs above the sysfs root; ReadLinkSys's error
// otherwise (NotFound: no such link).
Status ResolveSysLink(const HostFs& fs, std::string_view rel, std::string* out);

// The PCI function a device directory belongs to: the directory itself
// (".../0000:00:03.0") or its parent (".../0000:00:03.0/virtio2", a virtio
// device under its virtio-pci function); "" when neither is a PCI function
// (USB, platform, VMBus devices). Returns the directory's path up to and
// including the function in *function_dir when non-null.
std::string PciFunctionOf(std::string_view device_dir, std::string* function_dir = nullptr);

}  // namespace bottleneckd
