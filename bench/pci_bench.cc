// Microbenchmarks (Google Benchmark) of the PCI collector and the bus model:
// decoding one config space, reading a whole topology (first tick, or after a
// hotplug), a steady tick (device listing + AER files), building every NIC's
// bus path and modelling one window. Over the fixture trees and, with
// BOTTLENECKD_BENCH_LIVE=1, this host's /sys, which bench/pci_compare.sh puts
// side by side with `lspci -vv` reading the same devices.
// Nothing here asserts a time: a read failure aborts the run instead.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "collectors/pci.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/window.h"

namespace bottleneckd {
namespace {

using testing::FixtureDir;
using testing::FixtureRoots;

HostRoots Roots(const char* scenario) { return std::string(scenario) == "live" ? HostRoots() : FixtureRoots(scenario); }

void CheckOk(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "pci_bench: %s: %s\n", what, s.ToString().c_str());
    std::abort();
  }
}

void BM_DecodePciConfig(benchmark::State& state, const char* rel) {
  std::string bytes = testing::ReadFileOrDie(FixtureDir("pcie-box") + "/sys/" + rel);
  for (auto _ : state) benchmark::DoNotOptimize(DecodePciConfig(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK_CAPTURE(BM_DecodePciConfig, connectx6_4k,
                  "devices/pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:08.0/0000:83:00.0/config");

void BM_ReadTopology(benchmark::State& state, const char* scenario) {
  HostFs fs(Roots(scenario));
  for (auto _ : state) {
    PciTopology t;
    CheckOk(PciCollector::ReadTopology(fs, &t), "ReadTopology");
    benchmark::DoNotOptimize(t.devices.size());
  }
}
BENCHMARK_CAPTURE(BM_ReadTopology, seed_box, "seed-box")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReadTopology, large_host, "large-host")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReadTopology, pcie_box, "pcie-box")->Unit(benchmark::kMicrosecond);

// A steady tick: the topology is cached; one listing each of bus/pci/devices
// and class/net, and the AER files of the devices on NIC paths.
void BM_PciCollectSteady(benchmark::State& state, const char* scenario) {
  HostFs fs(Roots(scenario));
  PciCollector c;
  Sample s;
  CheckOk(c.Collect(fs, &s), "Collect");
  for (auto _ : state) {
    s = Sample();
    CheckOk(c.Collect(fs, &s), "Collect");
  }
}
BENCHMARK_CAPTURE(BM_PciCollectSteady, seed_box, "seed-box")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PciCollectSteady, large_host, "large-host")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PciCollectSteady, pcie_box, "pcie-box")->Unit(benchmark::kMicrosecond);

void BM_BuildBusPathsAndEstimate(benchmark::State& state, const char* scenario) {
  HostFs fs(Roots(scenario));
  PciTopology t;
  CheckOk(PciCollector::ReadTopology(fs, &t), "ReadTopology");
  std::vector<NicWindow> nics;
  for (const PciDevice& d : t.devices)
    for (const std::string& ifname : d.interfaces) {
      NicWindow w;
      w.interface = ifname;
      w.rx_packets_per_second = w.tx_packets_per_second = 1e6;
      w.rx_bits_per_second = w.tx_bits_per_second = 8e9;
      w.interrupts_per_second = 1e5;
      nics.push_back(w);
    }
  BusModelOptions options = DefaultBusModelOptions();
  for (auto _ : state) {
    std::vector<BusPath> paths = BuildBusPaths(t);
    benchmark::DoNotOptimize(EstimateBus(paths, nics, t, options));
  }
}
BENCHMARK_CAPTURE(BM_BuildBusPathsAndEstimate, seed_box, "seed-box")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BuildBusPathsAndEstimate, pcie_box, "pcie-box")->Unit(benchmark::kMicrosecond);

// This host's /sys: registered only on request (bench/pci_compare.sh), so a
// run elsewhere never depends on the machine's devices.
[[maybe_unused]] const bool kLive = [] {
  const char* live = std::getenv("BOTTLENECKD_BENCH_LIVE");
  if (live && std::string(live) == "1") {
    benchmark::RegisterBenchmark("BM_ReadTopology/live", BM_ReadTopology, "live")->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_PciCollectSteady/live", BM_PciCollectSteady, "live")
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace bottleneckd

BENCHMARK_MAIN();
