// Fuzzes the bus path builder and the bus model over topologies made of
// arbitrary config spaces: the bytes are cut into up to six 256-byte config
// spaces, chained parent to child (the last one a NIC), each device's sysfs
// link attributes taken from the bytes too; then every NIC's path is built and
// modelled under rates taken from the first bytes. Nothing may crash, loop or
// produce a negative or NaN utilisation.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "collectors/pci.h"
#include "window/window.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  if (size < 8) return 0;
  PciTopology topo;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string parent;
  for (int i = 0; i < 6 && bytes.size() >= 4; ++i) {
    std::string_view chunk = bytes.substr(0, 256);
    bytes.remove_prefix(chunk.size());
    PciDevice d;
    d.address = "0000:0" + std::to_string(i) + ":00.0";
    d.parent = parent;
    d.root_bus = "pci0000:00";
    d.config = DecodePciConfig(chunk);
    d.vendor = d.config.vendor;
    d.class_code = d.config.class_code;
    d.sysfs_link_speed = static_cast<uint8_t>(chunk[0]) % 8;
    d.sysfs_link_width = static_cast<uint8_t>(chunk[1]) % 40;
    d.sysfs_max_link_speed = static_cast<uint8_t>(chunk[2]) % 8;
    d.sysfs_max_link_width = static_cast<uint8_t>(chunk[3]) % 40;
    parent = d.address;
    topo.devices.push_back(std::move(d));
  }
  topo.devices.back().interfaces = {"eth0"};
  topo.devices.back().class_code = 0x020000;
  std::vector<BusPath> paths = BuildBusPaths(topo);
  NicWindow w;
  w.interface = "eth0";
  w.rx_packets_per_second = data[4] * 1000.0;
  w.tx_packets_per_second = data[5] * 1000.0;
  w.rx_bits_per_second = data[6] * 8e6;
  w.tx_bits_per_second = data[7] * 8e6;
  w.interrupts_per_second = data[4] * 10.0;
  BusEstimate e = EstimateBus(paths, {w}, topo, DefaultBusModelOptions());
  for (const BusLinkEstimate& l : e.links)
    if (!(l.load.utilisation >= 0) || std::isinf(l.load.utilisation)) __builtin_trap();
  for (const BusNicEstimate& n : e.nics)
    if (!(n.path_utilisation >= 0)) __builtin_trap();
  return 0;
}
