// The bus_model section of the config (etc/bottleneckd.yaml, docs/bus-model.md):
// NIC profiles (overrides of the built-ins, or new ones built on a `base`),
// which interface uses which, and the PCI/PCI-X/PCIe timing parameters.
#pragma once

#include "base/config_reader.h"
#include "base/status.h"
#include "bus/bus_model.h"

namespace bottleneckd {

// Parses the section `n` over *out, which holds the defaults
// (DefaultBusModelOptions). Errors at the value's file:line:column.
Status ParseBusModel(const ConfigReader& r, const YAML::Node& n, BusModelOptions* out);

}  // namespace bottleneckd
