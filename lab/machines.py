"""The simulated machines' hardware as the kernel shows it: PCI topology and
config space, interfaces, IRQ lines, ethtool statistics names.

- seed_box(): the box of the seed mails, exactly as scripts/gen-seed-box.py
  builds tests/fixtures/seed-box (its PCI functions, config space and IRQs are
  taken from that script, imported, not copied): one CPU, em0/em1 on PCI-X
  133/64 behind the P64H2, em2/fxp0 on the ICH3's PCI 33/32.
- pcie_host(): 2 sockets x 4 cores, an Intel 82576 (igb) on PCIe Gen2 x4 with
  four MSI-X queue vectors.
- kvm_guest(): 2 vCPUs, virtio-net over PCI with MSI-X.
- echo_box(): the echo lab's box (tests/echo_lab) on this project's 2-vCPU VM
  with Linux 6.18: the echo's network namespace, lo and one end of a veth pair.

Uses scripts/fixture_lib.py for every file format. Standard library only.
"""

import importlib.util
import os
import sys
from dataclasses import dataclass, field

sys.dont_write_bytecode = True
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")
sys.path.insert(0, SCRIPTS)
import fixture_lib as fl  # noqa: E402


def _import_script(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  os.path.join(SCRIPTS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SEED = _import_script("gen-seed-box")


@dataclass
class Netdev:
    name: str
    ifindex: int
    driver: str = ""       # ethtool statistics format; "" for none (lo)
    pci: str = ""          # PCI function address, "" for a virtual interface
    parent: str = ""       # its device's dir under devices/ (net/NAME is below it)
    operstate: str = "up"

    @property
    def dev_dir(self):
        """The interface's directory, relative to the sysfs root."""
        if not self.parent:
            return "devices/virtual/net/" + self.name
        return "devices/%s/net/%s" % (self.parent, self.name)


@dataclass
class Topology:
    hostname: str
    kernel: str
    ncpu: int
    btime: int
    pci: list                 # (address, path under devices/, Config, attrs, driver, msi)
    netdevs: list             # Netdev
    irqs: fl.IrqTable         # counts hold the values at boot + uptime
    nic_irqs: dict            # ifname -> [Irq per rx queue]
    extra: list = field(default_factory=list)  # (rel path, text) more static sysfs files
    links: list = field(default_factory=list)  # (rel path, target) more static symlinks

    def netdev(self, name):
        return next(n for n in self.netdevs if n.name == name)

    def write_static_sys(self, root, stats):
        """The PCI functions, interfaces (with statistics from stats[name]) and
        the other static sysfs files under root/sys."""
        for addr, path, cfg, attrs, driver, msi in self.pci:
            fl.write_pci_function(root, addr, path, cfg, attrs, driver, msi_irqs=msi)
        for n in self.netdevs:
            # net/NAME/device -> ../../../<the parent's name>
            pci = (os.path.basename(n.parent), n.parent) if n.parent else None
            fl.write_netdev(root, n.name, n.ifindex, dict(operstate=n.operstate),
                            stats[n.name], pci=pci)
        for rel, text in self.extra:
            fl.write(root, rel, text)
        for rel, target in self.links:
            fl.symlink(root, rel, target)
        fl.write(root, "sys/devices/system/cpu/online",
                 "0\n" if self.ncpu == 1 else "0-%d\n" % (self.ncpu - 1))


# ---------------------------------------------------------- the seed box ---
def seed_box():
    devs = [(a, p, c, attrs, d, ()) for a, p, c, attrs, d in SEED.pci_devices()]
    paths = {a: p for a, p, _, _, _, _ in devs}
    drivers = {"em0": "e1000", "em1": "e1000", "em2": "e1000", "fxp0": "e100"}
    netdevs = []
    for name, ifindex, addr in SEED.NETDEVS:
        if addr:
            netdevs.append(Netdev(name, ifindex, drivers[name], addr, paths[addr]))
        else:
            netdevs.append(Netdev(name, ifindex, operstate="unknown"))
    irqs = fl.IrqTable(1, SEED.NR_IRQS)
    bench_irqs = SEED.EM0_IRQS_PER_S * SEED.BENCH_S  # the fixture's benchmark, not ours
    by_name = {}
    for num in sorted(SEED.IRQ):
        count, chip, hwirq, flow, action = SEED.IRQ[num]
        irq = irqs.add(chip, hwirq, flow, [action], num=num)
        irq.counts[0] = count - bench_irqs if action == "em0" else count
        by_name[action] = irq
    nic_irqs = {n: [by_name[n]] for n in ("em0", "em1", "em2", "fxp0")}
    return Topology("seedbox", "6.1.0-13-686-pae", 1, SEED.BTIME, devs, netdevs, irqs,
                    nic_irqs)


E1000_STATS = SEED.E1000_STATS
E100_STATS = SEED.E100_STATS

# igb's `ethtool -S` (Linux 6.1 igb_ethtool.c order), the global counters, then
# per queue: tx_queue_N_{packets,bytes,restart}, rx_queue_N_{packets,bytes,drops,
# csum_err,alloc_failed}.
IGB_STATS = [
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_broadcast", "tx_broadcast",
    "rx_multicast", "tx_multicast", "multicast", "collisions", "rx_crc_errors",
    "rx_no_buffer_count", "rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors",
    "tx_window_errors", "tx_abort_late_coll", "tx_deferred_ok", "tx_single_coll_ok",
    "tx_multi_coll_ok", "tx_timeout_count", "rx_long_length_errors",
    "rx_short_length_errors", "rx_align_errors", "tx_tcp_seg_good", "tx_tcp_seg_failed",
    "rx_flow_control_xon", "rx_flow_control_xoff", "tx_flow_control_xon",
    "tx_flow_control_xoff", "rx_long_byte_count", "tx_dma_out_of_sync", "tx_smbus",
    "rx_smbus", "dropped_smbus", "os2bmc_rx_by_bmc", "os2bmc_tx_by_bmc",
    "os2bmc_tx_by_host", "os2bmc_rx_by_host", "tx_hwtstamp_timeouts",
    "tx_hwtstamp_skipped", "rx_hwtstamp_cleared", "rx_errors", "tx_errors", "tx_dropped",
    "rx_length_errors", "rx_over_errors", "rx_frame_errors", "rx_fifo_errors",
    "tx_fifo_errors", "tx_heartbeat_errors"]
IGB_TX_QUEUE = ["packets", "bytes", "restart"]
IGB_RX_QUEUE = ["packets", "bytes", "drops", "csum_err", "alloc_failed"]
# virtio_net (Linux 6.1): per rx queue, then per tx queue.
VIRTIO_RX_QUEUE = ["packets", "bytes", "drops", "xdp_packets", "xdp_tx", "xdp_redirects",
                   "xdp_drops", "kicks"]
VIRTIO_TX_QUEUE = ["packets", "bytes", "xdp_tx", "xdp_tx_drops", "kicks", "tx_timeouts"]


def ethtool_pairs(driver, c, nq):
    """(name, value) pairs of `ethtool -S` for driver, from counters c (the
    netdev statistics plus hw_rx_bytes, hw_tx_bytes, rx_no_buffer_count, and
    per queue qN_rx_packets, qN_rx_bytes, qN_tx_packets, qN_tx_bytes)."""
    g = lambda k: c.get(k, 0)  # noqa: E731
    if driver == "e1000":
        v = dict(rx_packets=g("rx_packets"), tx_packets=g("tx_packets"),
                 rx_bytes=g("hw_rx_bytes"), tx_bytes=g("hw_tx_bytes"),
                 rx_broadcast=g("rx_broadcast"), tx_broadcast=g("tx_broadcast"),
                 rx_no_buffer_count=g("rx_no_buffer_count"),
                 rx_missed_errors=g("rx_missed_errors"), tx_restart_queue=g("tx_restart_queue"),
                 rx_long_byte_count=g("hw_rx_bytes"), rx_csum_offload_good=g("rx_csum_good"))
        return [(n, v.get(n, 0)) for n in E1000_STATS]
    if driver == "e100":
        return [(n, g(n)) for n in E100_STATS]
    if driver == "igb":
        v = dict(c, rx_bytes=g("hw_rx_bytes"), tx_bytes=g("hw_tx_bytes"),
                 rx_long_byte_count=g("hw_rx_bytes"))
        pairs = [(n, v.get(n, 0)) for n in IGB_STATS]
        for q in range(nq):
            pairs += [("tx_queue_%d_%s" % (q, f), g("q%d_tx_%s" % (q, f))) for f in IGB_TX_QUEUE]
        for q in range(nq):
            pairs += [("rx_queue_%d_%s" % (q, f), g("q%d_rx_%s" % (q, f))) for f in IGB_RX_QUEUE]
        return pairs
    if driver == "virtio_net":
        pairs = []
        for q in range(nq):
            pairs += [("rx_queue_%d_%s" % (q, f), g("q%d_rx_%s" % (q, f)))
                      for f in VIRTIO_RX_QUEUE]
        for q in range(nq):
            pairs += [("tx_queue_%d_%s" % (q, f), g("q%d_tx_%s" % (q, f)))
                      for f in VIRTIO_TX_QUEUE]
        return pairs
    return None


# ------------------------------------------------------------ PCIe host ---
def pcie_host():
    """Two Xeon E5-2609 (Sandy Bridge-EP, 4 cores each, no SMT): CPUs 0-3 on
    socket 0, 4-7 on socket 1. eth0: an 82576 (8086:10c9, igb) in a x4 slot of
    root port 0000:00:02.0 (Gen3 x8 capable), link 5 GT/s x4, MPS 256, MRRS 512,
    NUMA node 0; MSI-X vectors: "eth0" (link) and eth0-TxRx-0..3."""
    ncpu, gsi_top = 8, 24
    irqs = fl.IrqTable(ncpu, (gsi_top + 16) + 8 * ncpu + 16 * gsi_top, first_dynamic=gsi_top)
    for num, hwirq, flow, action, count in ((0, 2, "edge", "timer", 46), (1, 1, "edge", "i8042", 9),
                                            (8, 8, "edge", "rtc0", 1),
                                            (9, 9, "fasteoi", "acpi", 0)):
        irqs.add("IR-IO-APIC", hwirq, flow, [action], num=num).counts[0] = count
    root = "pci0000:00"
    rp, nic = "0000:00:02.0", "0000:01:00.0"
    host = fl.header(0x8086, 0x3c00, 0x0006, 0x0010, 0x07, 0x060000, 0x00, size=4096)
    c_rp = fl.header(0x8086, 0x3c04, 0x0547, fl.ST_CAP, 0x07, 0x060400, 0x01, size=4096)
    fl.bridge_bus_numbers(c_rp, 0, 1, 1)
    fl.bridge_windows(c_rp, mem=(0xfbc00000, 0xfbefffff))
    c_rp.u8(0x34, 0x40)
    c_rp.u8(0x3d, 1)
    fl.msi_cap(c_rp, 0x40, 0x90, True)
    fl.pcie_capability(c_rp, 0x90, 0xe0, fl.PCIE_ROOT_PORT, 256, 256, 128, 8.0, 8, 5.0, 4,
                       dll_active=True, slot=(2, 75))
    fl.pm_cap(c_rp, 0xe0, 0x00, 0xc803, 0x0008)
    c_nic = fl.header(0x8086, 0x10c9, 0x0406, fl.ST_CAP, 0x01, 0x020000, 0x00, size=4096)
    c_nic.u32(0x10, 0xfbe20000)  # BAR0 128 KiB
    c_nic.u32(0x18, 0x0000e001)  # BAR2 I/O
    c_nic.u32(0x1c, 0xfbec4000)  # BAR3 16 KiB (MSI-X table)
    c_nic.u16(0x2c, 0x8086)
    c_nic.u16(0x2e, 0x0001)
    c_nic.u8(0x34, 0x40)
    c_nic.u8(0x3c, 0x0b)
    c_nic.u8(0x3d, 1)
    fl.pm_cap(c_nic, 0x40, 0x50, 0xc823, 0x2000)
    fl.msi_cap(c_nic, 0x50, 0x70, False, mmc=0, maskable=True)
    fl.msix_capability(c_nic, 0x70, 0xa0, 10, table_bir=3, table_off=0, pba_bir=3,
                       pba_off=0x2000)
    fl.pcie_capability(c_nic, 0xa0, 0x00, fl.PCIE_ENDPOINT, 512, 256, 512, 5.0, 4, 5.0, 4,
                       flr=True)
    fl.aer_capability(c_nic, 0x100, 0x000)
    nic_msi = []
    queue_irqs = []
    for index, action in enumerate(["eth0"] + ["eth0-TxRx-%d" % q for q in range(4)]):
        irq = irqs.add_msi(nic, "msix", "IR-PCI-MSI", fl.msi_hwirq(nic, index), [action])
        nic_msi.append((irq.num, "msix"))
        if index:
            queue_irqs.append(irq)
        else:
            irq.counts[0] = 2  # link vector: carrier up at boot
    rp_path, nic_path = root + "/" + rp, root + "/" + rp + "/" + nic
    devs = [("0000:00:00.0", root + "/0000:00:00.0", host,
             fl.pci_attrs(host, 0, 0, (0x8086, 0x0000)), None, ()),
            (rp, rp_path, c_rp, fl.pci_attrs(c_rp, 26, 0, (0, 0), link=(8.0, 8, 5.0, 4)),
             "pcieport", ()),
            (nic, nic_path, c_nic,
             fl.pci_attrs(c_nic, 11, 0, (0x8086, 0x0001), link=(5.0, 4, 5.0, 4)), "igb",
             nic_msi)]
    netdevs = [Netdev("lo", 1, operstate="unknown"),
               Netdev("eth0", 2, "igb", nic, nic_path)]
    return Topology("hotcore", "6.1.0-13-amd64", ncpu, 1764480000, devs, netdevs, irqs,
                    {"eth0": queue_irqs})


# ------------------------------------------------------------ KVM guest ---
def kvm_guest():
    """2 vCPUs of a KVM guest (i440FX machine): virtio-net 1.0 (1af4:1041) at
    0000:00:03.0 as virtio0, MSI-X: virtio0-config, virtio0-input.0,
    virtio0-output.0. Steal is reported (CONFIG_PARAVIRT_TIME_ACCOUNTING)."""
    ncpu, gsi_top = 2, 24
    irqs = fl.IrqTable(ncpu, (gsi_top + 16) + 8 * ncpu + 16 * gsi_top, first_dynamic=gsi_top)
    for num, hwirq, flow, action, count in ((0, 2, "edge", "timer", 33), (1, 1, "edge", "i8042", 9),
                                            (4, 4, "edge", "ttyS0", 12),
                                            (8, 8, "edge", "rtc0", 0),
                                            (9, 9, "fasteoi", "acpi", 0)):
        irqs.add("IO-APIC", hwirq, flow, [action], num=num).counts[0] = count
    root, nic = "pci0000:00", "0000:00:03.0"
    host = fl.header(0x8086, 0x1237, 0x0106, 0x0000, 0x02, 0x060000, 0x00)
    c_nic = fl.header(0x1af4, 0x1041, 0x0507, fl.ST_CAP, 0x01, 0x020000, 0x00)
    c_nic.u32(0x14, 0xfebd1000)          # BAR1: MSI-X table
    c_nic.u32(0x20, 0xfe000000 | 0xc)    # BAR4: 64-bit prefetchable (virtio regions)
    c_nic.u16(0x2c, 0x1af4)
    c_nic.u16(0x2e, 0x1100)
    c_nic.u8(0x34, 0x98)
    c_nic.u8(0x3c, 11)
    c_nic.u8(0x3d, 1)
    fl.msix_capability(c_nic, 0x98, 0x00, 3, table_bir=1, table_off=0, pba_bir=1,
                       pba_off=0x800)
    msi, queue_irqs = [], []
    for index, action in enumerate(["virtio0-config", "virtio0-input.0", "virtio0-output.0"]):
        irq = irqs.add_msi(nic, "msix", "PCI-MSI", fl.msi_hwirq(nic, index), [action])
        msi.append((irq.num, "msix"))
        if action.endswith("input.0"):
            queue_irqs.append(irq)
    nic_path = root + "/" + nic
    devs = [("0000:00:00.0", root + "/0000:00:00.0", host,
             fl.pci_attrs(host, 0, -1, (0x1af4, 0x1100)), None, ()),
            (nic, nic_path, c_nic, fl.pci_attrs(c_nic, 11, -1, (0x1af4, 0x1100)),
             "virtio-pci", msi)]
    netdevs = [Netdev("eth0", 2, "virtio_net", nic, nic_path + "/virtio0"),
               Netdev("lo", 1, operstate="unknown")]
    virtio0 = "sys/devices/%s/virtio0" % nic_path
    extra = [(virtio0 + "/device", "0x0001\n"), (virtio0 + "/vendor", "0x1af4\n")]
    # virtio0/driver -> bus/virtio/drivers/virtio_net, four levels below sys/.
    links = [(virtio0 + "/driver", "../../../../bus/virtio/drivers/virtio_net")]
    return Topology("kvmguest", "6.1.0-13-amd64", ncpu, 1764480000, devs,
                    sorted(netdevs, key=lambda n: n.name), irqs, {"eth0": queue_irqs}, extra,
                    links)


# ------------------------------------------------------------- echo box ---
def echo_box():
    """The network namespace of the echo lab's server (tests/echo_lab) on a
    2-vCPU VM with Linux 6.18 (the machine the lab ran on): lo and veth0, one
    end of a veth pair whose peer is in the load generator's namespace.
    veth0 is virtual: no PCI function, no IRQ, no `ethtool -S` counters but
    XDP's (not written). PCI holds the host bridge (8086:0d57) alone: the VM's
    virtio functions serve the root namespace, whose interfaces the box does
    not see. IRQs as the VM's /proc/interrupts starts: ACPI:Ged and ttyS0."""
    ncpu, gsi_top = 2, 24
    irqs = fl.IrqTable(ncpu, (gsi_top + 16) + 8 * ncpu + 16 * gsi_top, first_dynamic=gsi_top)
    for num, hwirq, action, counts in ((24, 5, "ACPI:Ged", [1, 0]), (25, 6, "ACPI:Ged", [0, 1]),
                                       (26, 4, "ttyS0", [0, 15])):
        irqs.add("IO-APIC", hwirq, "edge", [action], num=num).counts[:] = counts
    root = "pci0000:00"
    host = fl.header(0x8086, 0x0d57, 0x0000, 0x0000, 0x00, 0x060000, 0x00)
    devs = [("0000:00:00.0", root + "/0000:00:00.0", host, fl.pci_attrs(host, 0, -1, (0, 0)),
             None, ())]
    netdevs = [Netdev("lo", 1, operstate="unknown"), Netdev("veth0", 2, "veth")]
    return Topology("echobox", "6.18.44-fc-v1045", ncpu, 1764576000, devs, netdevs, irqs,
                    {"veth0": []})
