#!/usr/bin/env python3
"""Generates the "large-host" fixture tree (tests/fixtures/large-host).

A modelled two-socket server as Linux 6.8 (x86_64, Ubuntu 24.04 style) shows it:
128 logical CPUs (2 x 32 cores x 2 threads, NUMA node 0 = CPUs 0-31,64-95,
node 1 = 32-63,96-127), 8 NVMe drives with 129 MSI-X vectors each, a Mellanox
ConnectX-5 (mlx5_core, eth0, 0000:3b:00.0, 8.0 GT/s x16, 16 completion vectors
+ async) and an Intel 82599 (ixgbe, eth1, 0000:af:00.0, 5.0 GT/s x8, 16 TxRx
vectors + link vector): 32 NIC queues, >1000 numeric IRQ lines.

Deterministic: all variation comes from random.Random(SEED). Standard library only,
plus the shared helpers in scripts/fixture_lib.py next to this file.
Usage: python3 scripts/gen-large-host.py tests/fixtures/large-host
"""

import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fixture_lib import (PCIE_SIZE_CODE, PCIE_SPEED_CODE, IrqTable, bridge_bus_numbers,
                         bridge_windows, cpu_ticks, ethtool_text, header, ip_ledger,
                         keep_empty_dirs, msi_cap, msix_capability, output_root, pci_attrs,
                         pcie_speed_vector, pm_cap, proc_net_netstat, proc_net_snmp,
                         softnet_stat, spread, worker_threads, write, write_daemon,
                         write_netdev, write_pci_function, write_procfs)

SEED = 20040621
NCPU = 128
UPTIME_S = 22834           # 6 h 20 min 34 s: keeps every 32-bit counter below 2^32
USER_HZ = 100
TICKS = UPTIME_S * USER_HZ
NR_IRQS = 2048             # >= 1000, so /proc/interrupts pads IRQ numbers to 4 digits
BTIME = 1718953200

rng = random.Random(SEED)


MLX_CPUS = list(range(0, 16))      # mlx5 comp vectors, node 0 (device on node 0)
IXGBE_CPUS = list(range(32, 48))   # ixgbe queue vectors, node 1
WORKER_CPUS = list(range(64, 80))  # udpecho worker threads (HT siblings of 0-15)

# ------------------------------------------------------------------ PCI -----
# (address, sysfs path under devices/, kind, numa node)
ROOT_PORTS = [("0000:17:02.0", "0000:18:00.0"), ("0000:17:03.0", "0000:19:00.0"),
              ("0000:17:04.0", "0000:1a:00.0"), ("0000:17:05.0", "0000:1b:00.0"),
              ("0000:3a:02.0", "0000:3b:00.0"),
              ("0000:85:02.0", "0000:86:00.0"), ("0000:85:03.0", "0000:87:00.0"),
              ("0000:85:04.0", "0000:88:00.0"), ("0000:85:05.0", "0000:89:00.0"),
              ("0000:ae:02.0", "0000:af:00.0")]
NVME_ADDRS = [d for _, d in ROOT_PORTS if d not in ("0000:3b:00.0", "0000:af:00.0")]
MLX_ADDR, IXGBE_ADDR = "0000:3b:00.0", "0000:af:00.0"


def bus_of(addr):
    return int(addr[5:7], 16)


def dev_path(addr):
    for rp, dev in ROOT_PORTS:
        if addr == rp:
            return "pci0000:%s/%s" % (rp[5:7], rp)
        if addr == dev:
            return "pci0000:%s/%s/%s" % (rp[5:7], rp, dev)
    return "pci0000:00/" + addr


def numa(addr):
    return 0 if bus_of(addr) < 0x80 else 1


# ------------------------------------------------------------ IRQ table -----
IRQS = IrqTable(NCPU, NR_IRQS)


def msi(addr, kind, hwirq, actions):
    chip = "IR-PCI-MSIX-%s" % addr if kind == "msix" else "IR-PCI-MSI-%s" % addr
    return IRQS.add_msi(addr, kind, chip, hwirq, actions)


def build_irqs():
    t = IRQS.add("IR-IO-APIC", 2, "edge", ["timer"], num=0)
    t.counts[0] = 38
    s = IRQS.add("IR-IO-APIC", 4, "edge", ["ttyS0"], num=4)
    s.counts[5] = 1173
    IRQS.add("IR-IO-APIC", 8, "edge", ["rtc0"], num=8).counts[0] = 1
    IRQS.add("IR-IO-APIC", 9, "fasteoi", ["acpi"], num=9)
    IRQS.add("IR-IO-APIC", 16, "fasteoi", ["i801_smbus"], num=16).counts[17] = 29
    for i in range(8):
        IRQS.add("DMAR-MSI", i, "edge", ["dmar%d" % i], num=24 + i if i == 0 else None)
    for rp, dev in ROOT_PORTS:
        actions = ["PCIe PME", "aerdrv"] + (["pciehp"] if dev in NVME_ADDRS else [])
        irq = msi(rp, "msi", 0, actions)
        if dev in NVME_ADDRS:
            irq.counts[rng.randrange(NCPU)] = rng.randrange(1, 4)  # slot events at boot
    x = msi("0000:00:14.0", "msi", 0, ["xhci_hcd"])
    x.counts[rng.choice([2, 3])] = 71
    for n, addr in enumerate(NVME_ADDRS):
        q0 = msi(addr, "msix", 0, ["nvme%dq0" % n])
        q0.counts[0] = rng.randrange(40, 90)
        q0.counts[rng.randrange(NCPU)] = rng.randrange(600, 1400)
        for q in range(1, 129):
            irq = msi(addr, "msix", q, ["nvme%dq%d" % (n, q)])
            irq.counts[q - 1] = rng.randrange(300000, 4800000)  # managed: queue q on CPU q-1
    async_irq = msi(MLX_ADDR, "msix", 0, ["mlx5_async0@pci:%s" % MLX_ADDR])
    async_irq.counts[0] = 1894
    async_irq.counts[rng.randrange(NCPU)] = 4471
    for i in range(16):
        irq = msi(MLX_ADDR, "msix", i + 1, ["mlx5_comp%d@pci:%s" % (i, MLX_ADDR)])
        irq.counts[MLX_CPUS[i]] = rng.randrange(260000000, 340000000)
        irq.counts[0] += rng.randrange(0, 50)  # before the affinity was set
    for i in range(16):
        irq = msi(IXGBE_ADDR, "msix", i, ["eth1-TxRx-%d" % i])
        irq.counts[IXGBE_CPUS[i]] = rng.randrange(70000000, 110000000)
    link = msi(IXGBE_ADDR, "msix", 16, ["eth1"])
    link.counts[32] = 7


def build_named():
    named = {}
    busy = set(MLX_CPUS + IXGBE_CPUS + WORKER_CPUS)
    nmi = [rng.randrange(2250, 2320) for _ in range(NCPU)]  # perf NMI watchdog
    named["NMI"] = nmi
    named["PMI"] = list(nmi)
    named["LOC"] = [rng.randrange(21000000, 22800000) if c in busy
                    else rng.randrange(1500000, 6000000) for c in range(NCPU)]
    named["IWI"] = [rng.randrange(0, 40) for _ in range(NCPU)]
    named["RES"] = [rng.randrange(200000, 2500000) for _ in range(NCPU)]
    named["CAL"] = [rng.randrange(20000, 120000) for _ in range(NCPU)]
    named["TLB"] = [rng.randrange(1000, 90000) for _ in range(NCPU)]
    named["MCP"] = [UPTIME_S // 300 + 1] * NCPU
    return named  # the other named lines are 0


# ------------------------------------------------------------- traffic ------
ETH0_RX_SIZE, ETH0_TX_SIZE = 812, 790   # mean frame bytes (no FCS)
ETH1_RX_SIZE, ETH1_TX_SIZE = 604, 588


def build_traffic():
    t = {}
    # eth0: ~1.2 Mpps rx, ~1.15 Mpps tx over 16 channels.
    t["eth0_rx_q"] = [rng.randrange(1600000000, 1800000000) for _ in range(16)]
    t["eth0_tx_q"] = [int(p * rng.uniform(0.93, 0.97)) for p in t["eth0_rx_q"]]
    t["eth1_rx_q"] = [rng.randrange(390000000, 460000000) for _ in range(16)]
    t["eth1_tx_q"] = [int(p * rng.uniform(0.9, 0.96)) for p in t["eth1_rx_q"]]
    t["eth0_out_of_buffer"] = 1284551   # rx ring empty: software too slow (rung: NIC/host)
    t["eth0_discards_phy"] = 8271       # NIC port buffer full
    t["eth1_missed"] = 52113            # ixgbe MPC
    t["eth1_no_buffer"] = 0
    t["lo"] = 1842271
    t["docker0_rx"], t["docker0_tx"] = 4410729, 5120338
    t["veth_rx"], t["veth_tx"] = 5120338, 4410729   # the veth peer of docker0's traffic
    return t


# ------------------------------------------------------------ /proc/stat -----
def build_cpu_times(threads):
    rows = []
    for c in range(NCPU):
        total = TICKS + rng.randrange(-25, 26)
        if c in MLX_CPUS:
            f = dict(user=0.10, nice=0.0, system=0.08, iowait=0.001, irq=0.015, softirq=0.38)
        elif c in IXGBE_CPUS:
            f = dict(user=0.09, nice=0.0, system=0.07, iowait=0.001, irq=0.006, softirq=0.12)
        elif c in WORKER_CPUS:
            f = dict(user=0.0, nice=0.0, system=0.0, iowait=0.0005, irq=0.001, softirq=0.01)
        else:
            f = dict(user=rng.uniform(0.06, 0.25), nice=rng.uniform(0, 0.01),
                     system=rng.uniform(0.02, 0.07), iowait=rng.uniform(0.0005, 0.004),
                     irq=0.0005, softirq=0.004)
        # Worker CPUs: udpecho's threads and a little of other tasks.
        other = ((3000, 9000), (2000, 6000)) if c in WORKER_CPUS else None
        rows.append(cpu_ticks(rng, total, f, threads, c, other))
    return rows


# ------------------------------------------------------ softirqs, softnet ---
def build_softnet(traffic):
    processed = [0] * NCPU
    squeeze = [0] * NCPU
    dropped = [0] * NCPU
    for i, c in enumerate(MLX_CPUS):
        processed[c] += traffic["eth0_rx_q"][i]
        squeeze[c] = rng.randrange(150000, 400000)
    for i, c in enumerate(IXGBE_CPUS):
        processed[c] += traffic["eth1_rx_q"][i]
        squeeze[c] = rng.randrange(2000, 9000)
    # lo, veth and docker0 go through the per-CPU backlog of the sending CPU.
    backlog_total = traffic["lo"] + traffic["veth_rx"] + traffic["docker0_rx"]
    spread(backlog_total, [c for c in range(NCPU) if c not in MLX_CPUS + IXGBE_CPUS],
           processed)
    dropped[70], dropped[101] = 1204, 37   # backlog (netdev_max_backlog) drops
    qlen = [(0, 0)] * NCPU                 # (input_qlen, process_qlen) at the snapshot
    qlen[70], qlen[101] = (3, 0), (0, 1)
    return softnet_stat(processed, squeeze, dropped, qlen), processed, squeeze


def build_softirqs(squeeze):
    net_rx = [0] * NCPU
    for irq in IRQS:
        if any(a.startswith(("mlx5_comp", "eth1-TxRx")) for a in irq.actions):
            for c in range(NCPU):
                net_rx[c] += irq.counts[c]
    block = [0] * NCPU
    for irq in IRQS:
        if irq.actions[0].startswith("nvme"):
            for c in range(NCPU):
                block[c] += irq.counts[c] // 20
    rows = [
        ("HI", [rng.randrange(0, 30) for _ in range(NCPU)]),
        ("TIMER", [rng.randrange(300000, 1900000) for _ in range(NCPU)]),
        ("NET_TX", [rng.randrange(5000, 90000) if c in MLX_CPUS + IXGBE_CPUS
                    else rng.randrange(0, 400) for c in range(NCPU)]),
        ("NET_RX", [net_rx[c] + squeeze[c] + rng.randrange(20000, 60000)
                    for c in range(NCPU)]),
        ("BLOCK", [block[c] + rng.randrange(0, 200) for c in range(NCPU)]),
        ("IRQ_POLL", [0] * NCPU),
        ("TASKLET", [rng.randrange(0, 3000) for _ in range(NCPU)]),
        ("SCHED", [rng.randrange(900000, 4200000) for _ in range(NCPU)]),
        ("HRTIMER", [rng.randrange(0, 1200) for _ in range(NCPU)]),
        ("RCU", [rng.randrange(600000, 2600000) for _ in range(NCPU)]),
    ]
    return rows


# ------------------------------------------------------- snmp / netstat -----
def net_totals(traffic):
    rx = sum(traffic["eth0_rx_q"]) + sum(traffic["eth1_rx_q"])
    tx = sum(traffic["eth0_tx_q"]) + sum(traffic["eth1_tx_q"])
    return rx, tx


UDP_RCVBUF, UDP_NOPORTS, UDP_IGNORED = 93114, 919, 22913
ICMP_IN, ICMP_OUT = 3311, 2210
TCP_IN_NIC, TCP_OUT_NIC, TCP_RETRANS = 31870112, 29774410, 48211


def ip_counts(traffic):
    """IP-level packet ledger: NIC traffic + lo + containers (docker0, local TCP)."""
    rx, tx = net_totals(traffic)
    return ip_ledger(rx, tx, traffic["lo"] + traffic["docker0_rx"],
                     traffic["lo"] + traffic["docker0_tx"], TCP_IN_NIC, TCP_OUT_NIC,
                     TCP_RETRANS, ICMP_IN, ICMP_OUT, UDP_NOPORTS, UDP_RCVBUF, UDP_IGNORED)


def proc_snmp(traffic):
    c = ip_counts(traffic)
    return proc_net_snmp(
        "6.8", ip=dict(Forwarding=1, InReceives=c["in_receives"], InDelivers=c["in_receives"],
                       OutRequests=c["out_requests"], OutTransmits=c["out_requests"]),
        icmp=dict(InMsgs=ICMP_IN, InDestUnreachs=2020, InEchos=1291, OutMsgs=ICMP_OUT,
                  OutDestUnreachs=UDP_NOPORTS, OutEchoReps=1291),
        icmpmsg=dict(InType3=2020, InType8=1291, OutType0=1291, OutType3=UDP_NOPORTS),
        tcp=dict(ActiveOpens=211893, PassiveOpens=1904122, AttemptFails=1201,
                 EstabResets=4410, CurrEstab=1877, InSegs=c["tcp_in"], OutSegs=c["tcp_out"],
                 RetransSegs=TCP_RETRANS, InErrs=12, OutRsts=9123),
        udp=c["udp"])


def proc_netstat(traffic):
    tcpext = dict(TW=1801244, DelayedACKs=2290334, TCPHPHits=12093311, TCPPureAcks=4410982,
                  TCPHPAcks=8011392, TCPTimeouts=20911, TCPLossProbes=14032,
                  TCPBacklogCoalesce=341122, TCPRcvCoalesce=2019313, TCPOFOQueue=33920,
                  TCPAutoCorking=391221, TCPOrigDataSent=24110933, TCPDelivered=24301844,
                  TCPKeepAlive=40021)
    in_oct = sum(traffic["eth0_rx_q"]) * (ETH0_RX_SIZE - 14) + sum(traffic["eth1_rx_q"]) * (
        ETH1_RX_SIZE - 14)
    out_oct = sum(traffic["eth0_tx_q"]) * (ETH0_TX_SIZE - 14) + sum(traffic["eth1_tx_q"]) * (
        ETH1_TX_SIZE - 14)
    # lo and docker0 frames (sizes as in netdev_stats) carry IP too.
    in_oct += traffic["lo"] * (211 - 14) + traffic["docker0_rx"] * (143 - 14)
    out_oct += traffic["lo"] * (211 - 14) + traffic["docker0_tx"] * (655 - 14)
    return proc_net_netstat("6.8", tcpext, dict(
        InMcastPkts=1933, InBcastPkts=22913, InOctets=in_oct, OutOctets=out_oct,
        InMcastOctets=1933 * 40, InBcastOctets=22913 * 96,
        InNoECTPkts=ip_counts(traffic)["in_receives"]))


# ------------------------------------------------------------- threads ------
UDPECHO_PID = 48213
# The process image of udpecho (task stat fields): faults, sizes, addresses.
UDPECHO_IMAGE = dict(minflt=18211, majflt=3, vsize=2275385344, rss=30211,
                     code=(94610412920832, 94610413096465), stack=140733022164112,
                     data=(94610413158960, 94610413164768), brk=94610430586880,
                     args=(140733022170521, 140733022170544),
                     env=(140733022170544, 140733022171111))
UDPECHO_START = 60000  # starttime of the main thread, ticks after boot


def build_threads():
    return worker_threads(rng, UDPECHO_PID, "udpecho", (4120, 2291), WORKER_CPUS,
                          (UPTIME_S - 600) * USER_HZ, (0.30, 0.36), (0.42, 0.48))


# --------------------------------------------------------- PCI config -------
def hdr(size, *args):
    return header(*args, size=size)


def pcie_cap(c, off, nxt, port_type, mps_sup, mps, mrrs, max_speed, max_width, cur_speed,
             cur_width, slot=False, speeds_vector=True):
    """This fixture's PCI Express capability, a reduced form of
    fixture_lib.pcie_capability that its config bytes depend on: mps_sup is the
    Device Capabilities code, ports (type 4) get neither extended tags nor no snoop,
    no Link Control, Root Control or version 2 registers beyond Link Capabilities/
    Control 2, and a slot is a hot-plug one with a random number."""
    c.u8(off, 0x10)
    c.u8(off + 1, nxt)
    c.u16(off + 2, 0x0002 | (port_type << 4) | (0x0100 if slot else 0))
    devcap = mps_sup | (1 << 5) | (1 << 15) | (0 if port_type == 4 else (1 << 28))
    c.u32(off + 4, devcap)
    codes = PCIE_SIZE_CODE
    c.u16(off + 8, 0x0010 | 0x0100 | 0x0800 | (codes[mps] << 5) | (codes[mrrs] << 12) | 0x000f
          if port_type == 0 else 0x0010 | (codes[mps] << 5) | (codes[mrrs] << 12) | 0x000f)
    port_no = 0
    c.u32(off + 0x0c, PCIE_SPEED_CODE[max_speed] | (max_width << 4) | (3 << 10) | (1 << 20 if
          port_type == 4 else 0) | (port_no << 24))
    c.u16(off + 0x12, PCIE_SPEED_CODE[cur_speed] | (cur_width << 4) | (1 << 12) |
          (1 << 13 if port_type == 4 else 0))
    if slot:
        c.u32(off + 0x14, (1 << 5) | (1 << 6) | (25 << 7) | (rng.randrange(1, 64) << 19))
    c.u32(off + 0x2c, pcie_speed_vector(max_speed) if speeds_vector else 0)
    c.u16(off + 0x30, PCIE_SPEED_CODE[max_speed])


# Legacy INTx GSI of each MSI-X device (routed by ACPI _PRT but never requested, so
# absent from /proc/interrupts). sysfs "irq" shows it for MSI-X devices, and the MSI
# IRQ for MSI devices, as Linux does.
INTX_GSI = {MLX_ADDR: 17, IXGBE_ADDR: 18}
for _n, _a in enumerate(NVME_ADDRS):
    INTX_GSI[_a] = 17 + _n % 3


BAR_NVME = {a: 0xa8000000 + (bus_of(a) << 20) for a in NVME_ADDRS}
BAR_MLX = 0x38000000000          # 64-bit prefetchable, 32 MiB
BAR_IXGBE = (0xe9a00000, 0x7000, 0xe9c04000)  # BAR0 512 KiB, BAR2 I/O, BAR4 16 KiB


def build_pci():
    """address -> dict(config, subsystem, irq, driver,
    pcie=(max_speed, max_w, cur_speed, cur_w))."""
    devs = {}
    for rp, dev in ROOT_PORTS:
        rp_bus = bus_of(rp)
        dev_bus = bus_of(dev)
        width = {"0000:3a:02.0": 16, "0000:ae:02.0": 8}.get(rp, 4)
        cur = {"0000:3a:02.0": (8.0, 16), "0000:ae:02.0": (5.0, 8)}.get(rp, (16.0, 4))
        c = hdr(4096, 0x8086, 0x347a + (int(rp[8:10], 16) - 2), 0x0547, 0x0010, 0x04,
                0x060400, 0x01)
        bridge_bus_numbers(c, rp_bus, dev_bus, dev_bus)
        if dev in NVME_ADDRS:
            bridge_windows(c, mem=(BAR_NVME[dev], BAR_NVME[dev] + 0xfffff))
        elif dev == MLX_ADDR:
            bridge_windows(c, pref=(BAR_MLX, BAR_MLX + 0x1ffffff))
        else:
            bridge_windows(c, mem=(BAR_IXGBE[0], BAR_IXGBE[2] + 0xfffff), io=(0x7000, 0x7fff))
        c.u8(0x34, 0x40)
        c.u8(0x3d, 1)
        pcie_cap(c, 0x40, 0x80, 4, 2, 256, 512, 16.0, width, cur[0], cur[1],
                 slot=dev in NVME_ADDRS)
        msi_cap(c, 0x80, 0xa0, True)
        pm_cap(c, 0xa0, 0x00, 0x0003, 0x0008)
        devs[rp] = dict(config=c, subsystem=(0x8086, 0x0000), irq=IRQS.msi[rp][0][0],
                        driver="pcieport", pcie=(16.0, width, cur[0], cur[1]))
    for addr in NVME_ADDRS:
        c = hdr(4096, 0x144d, 0xa824, 0x0406, 0x0010, 0x00, 0x010802, 0x00)
        c.u32(0x10, BAR_NVME[addr] | 0x4)  # 64-bit memory, 16 KiB
        c.u16(0x2c, 0x144d)
        c.u16(0x2e, 0xa812)
        c.u8(0x34, 0x40)
        c.u8(0x3d, 1)
        pm_cap(c, 0x40, 0x50, 0x0003, 0x0008)
        msi_cap(c, 0x50, 0x70, False, mmc=5, maskable=True)
        pcie_cap(c, 0x70, 0xb0, 0, 2, 256, 512, 16.0, 4, 16.0, 4)
        msix_capability(c, 0xb0, 0x00, 130)
        devs[addr] = dict(config=c, subsystem=(0x144d, 0xa812), irq=INTX_GSI[addr],
                          driver="nvme", pcie=(16.0, 4, 16.0, 4))
    c = hdr(4096, 0x15b3, 0x1017, 0x0406, 0x0010, 0x00, 0x020000, 0x00)
    c.u32(0x10, (BAR_MLX & 0xffffffff) | 0xc)  # 64-bit prefetchable BAR0
    c.u32(0x14, BAR_MLX >> 32)
    c.u16(0x2c, 0x15b3)
    c.u16(0x2e, 0x0006)
    c.u8(0x34, 0x60)
    c.u8(0x3d, 1)
    pcie_cap(c, 0x60, 0x9c, 0, 2, 256, 4096, 8.0, 16, 8.0, 16)
    msix_capability(c, 0x9c, 0x40, 64)
    pm_cap(c, 0x40, 0x00, 0x0003, 0x0008)
    devs[MLX_ADDR] = dict(config=c, subsystem=(0x15b3, 0x0006), irq=INTX_GSI[MLX_ADDR],
                          driver="mlx5_core", pcie=(8.0, 16, 8.0, 16))
    c = hdr(4096, 0x8086, 0x10fb, 0x0406, 0x0010, 0x01, 0x020000, 0x80)
    c.u32(0x10, BAR_IXGBE[0] | 0x4)
    c.u32(0x18, BAR_IXGBE[1] | 0x1)
    c.u32(0x20, BAR_IXGBE[2] | 0x4)
    c.u16(0x2c, 0x8086)
    c.u16(0x2e, 0x0006)
    c.u8(0x34, 0x40)
    c.u8(0x3d, 1)
    pm_cap(c, 0x40, 0x50, 0xc823, 0x0008)
    msi_cap(c, 0x50, 0x70, False, maskable=True)
    msix_capability(c, 0x70, 0xa0, 64)
    pcie_cap(c, 0xa0, 0x00, 0, 2, 256, 512, 5.0, 8, 5.0, 8, speeds_vector=False)
    devs[IXGBE_ADDR] = dict(config=c, subsystem=(0x8086, 0x0006), irq=INTX_GSI[IXGBE_ADDR],
                            driver="ixgbe", pcie=(5.0, 8, 5.0, 8))
    # Platform devices without a PCIe capability: 256-byte config, no link attributes.
    c = hdr(256, 0x8086, 0x09a2, 0x0000, 0x0000, 0x04, 0x088000, 0x00)
    devs["0000:00:00.0"] = dict(config=c, subsystem=(0x8086, 0x0000), irq=0, driver=None,
                                pcie=None)
    c = hdr(256, 0x8086, 0xa1af, 0x0406, 0x0290, 0x09, 0x0c0330, 0x00)
    c.u32(0x10, 0xaa500004)
    c.u16(0x2c, 0x8086)
    c.u16(0x2e, 0x7270)
    c.u8(0x34, 0x70)
    c.u8(0x3d, 1)
    pm_cap(c, 0x70, 0x80, 0xc1c2, 0x0008)
    msi_cap(c, 0x80, 0x00, True, mmc=3)
    devs["0000:00:14.0"] = dict(config=c, subsystem=(0x8086, 0x7270),
                                irq=IRQS.msi["0000:00:14.0"][0][0], driver="xhci_hcd",
                                pcie=None)
    c = hdr(256, 0x8086, 0xa1a3, 0x0003, 0x0280, 0x09, 0x0c0500, 0x00)
    c.u32(0x10, 0xaa514004)
    c.u32(0x20, 0x00000781)
    c.u16(0x2c, 0x8086)
    c.u16(0x2e, 0x7270)
    c.u8(0x3c, 16)
    c.u8(0x3d, 1)
    devs["0000:00:1f.4"] = dict(config=c, subsystem=(0x8086, 0x7270), irq=16,
                                driver="i801_smbus", pcie=None)
    for addr, gsi in INTX_GSI.items():
        devs[addr]["config"].u8(0x3c, gsi)
    return devs


# ----------------------------------------------------------- netdevs --------
NETDEVS = [  # name, ifindex, pci address or None, operstate
    ("lo", 1, None, "unknown"), ("eth0", 2, MLX_ADDR, "up"), ("eth1", 3, IXGBE_ADDR, "up"),
    ("docker0", 4, None, "up"), ("veth4c1d3e2", 6, None, "up"),
    ("vethb7f9a01", 8, None, "up"), ("veth0e5a9c3", 10, None, "up")]


def netdev_stats(t):
    s = {}
    rx0, tx0 = sum(t["eth0_rx_q"]), sum(t["eth0_tx_q"])
    s["eth0"] = dict(rx_packets=rx0, tx_packets=tx0, rx_bytes=rx0 * ETH0_RX_SIZE,
                     tx_bytes=tx0 * ETH0_TX_SIZE, multicast=1933,
                     rx_missed_errors=t["eth0_out_of_buffer"])
    rx1, tx1 = sum(t["eth1_rx_q"]), sum(t["eth1_tx_q"])
    s["eth1"] = dict(rx_packets=rx1, tx_packets=tx1, rx_bytes=rx1 * ETH1_RX_SIZE,
                     tx_bytes=tx1 * ETH1_TX_SIZE, rx_missed_errors=t["eth1_missed"],
                     rx_errors=t["eth1_missed"])
    s["lo"] = dict(rx_packets=t["lo"], tx_packets=t["lo"], rx_bytes=t["lo"] * 211,
                   tx_bytes=t["lo"] * 211)
    s["docker0"] = dict(rx_packets=t["docker0_rx"], tx_packets=t["docker0_tx"],
                        rx_bytes=t["docker0_rx"] * 143, tx_bytes=t["docker0_tx"] * 655,
                        tx_dropped=0)
    s["veth4c1d3e2"] = dict(rx_packets=t["veth_rx"], tx_packets=t["veth_tx"],
                            rx_bytes=t["veth_rx"] * 655, tx_bytes=t["veth_tx"] * 143)
    s["vethb7f9a01"] = {}
    s["veth0e5a9c3"] = {}
    return s


def mlx5_ethtool(t):
    rxq, txq = t["eth0_rx_q"], t["eth0_tx_q"]
    rx, tx = sum(rxq), sum(txq)
    g = [("rx_packets", rx), ("rx_bytes", rx * ETH0_RX_SIZE), ("tx_packets", tx),
         ("tx_bytes", tx * ETH0_TX_SIZE), ("tx_tso_packets", 0), ("tx_tso_bytes", 0),
         ("rx_lro_packets", 0), ("rx_lro_bytes", 0), ("rx_ecn_mark", 0),
         ("rx_removed_vlan_packets", 0), ("rx_csum_unnecessary", rx - 40912),
         ("rx_csum_none", 40912), ("rx_csum_complete", 0), ("rx_xdp_drop", 0),
         ("rx_xdp_redirect", 0), ("tx_csum_partial", tx - 2210), ("tx_csum_none", 2210),
         ("tx_queue_stopped", 311), ("tx_queue_dropped", 0), ("tx_xmit_more", 9120331),
         ("tx_recover", 0), ("tx_cqes", tx), ("tx_queue_wake", 311), ("tx_cqe_err", 0),
         ("rx_wqe_err", 0), ("rx_mpwqe_filler_cqes", 0), ("rx_buff_alloc_err", 0),
         ("rx_cqe_compress_blks", 0), ("rx_cqe_compress_pkts", 0), ("rx_congst_umr", 0),
         ("ch_events", 0), ("ch_poll", 0), ("ch_arm", 0), ("ch_aff_change", 0),
         ("ch_force_irq", 0), ("ch_eq_rearm", 0),
         ("rx_out_of_buffer", t["eth0_out_of_buffer"]), ("rx_if_down_packets", 0),
         ("rx_vport_unicast_packets", rx + t["eth0_out_of_buffer"] - 1933),
         ("rx_vport_unicast_bytes", (rx + t["eth0_out_of_buffer"] - 1933) * ETH0_RX_SIZE),
         ("tx_vport_unicast_packets", tx), ("tx_vport_unicast_bytes", tx * ETH0_TX_SIZE),
         ("rx_vport_multicast_packets", 1933), ("rx_vport_multicast_bytes", 1933 * 54),
         ("tx_vport_multicast_packets", 0), ("tx_vport_multicast_bytes", 0),
         ("rx_vport_broadcast_packets", 0), ("rx_vport_broadcast_bytes", 0),
         ("tx_vport_broadcast_packets", 0), ("tx_vport_broadcast_bytes", 0),
         ("rx_packets_phy", rx + t["eth0_out_of_buffer"] + t["eth0_discards_phy"]),
         ("rx_bytes_phy", (rx + t["eth0_out_of_buffer"] + t["eth0_discards_phy"])
          * (ETH0_RX_SIZE + 4)),
         ("tx_packets_phy", tx), ("tx_bytes_phy", tx * (ETH0_TX_SIZE + 4)),
         ("rx_crc_errors_phy", 0), ("rx_in_range_len_errors_phy", 0),
         ("rx_out_of_range_len_phy", 0), ("rx_oversize_pkts_phy", 0),
         ("rx_symbol_err_phy", 0), ("tx_mac_control_phy", 0), ("rx_mac_control_phy", 0),
         ("rx_unsupported_op_phy", 0), ("rx_pause_ctrl_phy", 0), ("tx_pause_ctrl_phy", 0),
         ("rx_discards_phy", t["eth0_discards_phy"]), ("tx_discards_phy", 0),
         ("tx_errors_phy", 0), ("rx_undersize_pkts_phy", 0), ("rx_fragments_phy", 0),
         ("rx_jabbers_phy", 0), ("rx_prio0_bytes", rx * (ETH0_RX_SIZE + 4)),
         ("rx_prio0_packets", rx), ("rx_prio0_discards", t["eth0_discards_phy"]),
         ("tx_prio0_bytes", tx * (ETH0_TX_SIZE + 4)), ("tx_prio0_packets", tx),
         ("rx_pci_signal_integrity", 0), ("tx_pci_signal_integrity", 0),
         ("outbound_pci_buffer_overflow", 0), ("outbound_pci_stalled_rd", 0),
         ("outbound_pci_stalled_wr", 0), ("outbound_pci_stalled_rd_events", 0),
         ("outbound_pci_stalled_wr_events", 0), ("rx_buffer_passed_thres_phy", 0),
         ("module_unplug", 0), ("module_bus_stuck", 0), ("module_high_temp", 0),
         ("module_bad_shorted", 0)]
    chan = []
    irqs = {irq.actions[0]: irq for irq in IRQS}
    ch_totals = dict(events=0, poll=0, arm=0)
    for i in range(16):
        ev = sum(irqs["mlx5_comp%d@pci:%s" % (i, MLX_ADDR)].counts)
        poll = ev + rng.randrange(1000000, 9000000)
        ch_totals["events"] += ev
        ch_totals["poll"] += poll
        ch_totals["arm"] += ev
        chan += [("ch%d_events" % i, ev), ("ch%d_poll" % i, poll), ("ch%d_arm" % i, ev),
                 ("ch%d_aff_change" % i, 0), ("ch%d_force_irq" % i, 0),
                 ("ch%d_eq_rearm" % i, 0)]
    for i in range(16):
        chan += [("rx%d_packets" % i, rxq[i]), ("rx%d_bytes" % i, rxq[i] * ETH0_RX_SIZE),
                 ("rx%d_csum_complete" % i, 0), ("rx%d_csum_unnecessary" % i, rxq[i]),
                 ("rx%d_csum_none" % i, 0), ("rx%d_xdp_drop" % i, 0),
                 ("rx%d_lro_packets" % i, 0), ("rx%d_wqe_err" % i, 0),
                 ("rx%d_buff_alloc_err" % i, 0), ("rx%d_recover" % i, 0)]
    # Reconcile the csum split with the per-queue values (first queue takes the rest).
    chan = [(n, v - 40912) if n == "rx0_csum_unnecessary" else (n, v) for n, v in chan]
    chan = [(n, 40912) if n == "rx0_csum_none" else (n, v) for n, v in chan]
    for i in range(16):
        chan += [("tx%d_packets" % i, txq[i]), ("tx%d_bytes" % i, txq[i] * ETH0_TX_SIZE),
                 ("tx%d_tso_packets" % i, 0), ("tx%d_tso_bytes" % i, 0),
                 ("tx%d_csum_partial" % i, txq[i] - (2210 if i == 0 else 0)),
                 ("tx%d_csum_none" % i, 2210 if i == 0 else 0),
                 ("tx%d_stopped" % i, 311 if i == 5 else 0), ("tx%d_dropped" % i, 0),
                 ("tx%d_xmit_more" % i, 0), ("tx%d_recover" % i, 0),
                 ("tx%d_cqes" % i, txq[i]), ("tx%d_wake" % i, 311 if i == 5 else 0),
                 ("tx%d_cqe_err" % i, 0)]
    g = [(n, ch_totals[n[3:]]) if n in ("ch_events", "ch_poll", "ch_arm") else (n, v)
         for n, v in g]
    xmit_more = 9120331
    per = xmit_more // 16
    chan = [(n, per + (xmit_more - per * 16 if n == "tx0_xmit_more" else 0))
            if n.endswith("_xmit_more") else (n, v) for n, v in chan]
    return g + chan


IXGBE_GLOBAL = ["rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_pkts_nic",
                "tx_pkts_nic", "rx_bytes_nic", "tx_bytes_nic", "lsc_int", "tx_busy",
                "non_eop_descs", "rx_errors", "tx_errors", "rx_dropped", "tx_dropped",
                "multicast", "broadcast", "rx_no_buffer_count", "collisions",
                "rx_over_errors", "rx_crc_errors", "rx_frame_errors", "hw_rsc_aggregated",
                "hw_rsc_flushed", "fdir_match", "fdir_miss", "fdir_overflow",
                "rx_fifo_errors", "rx_missed_errors", "tx_aborted_errors",
                "tx_carrier_errors", "tx_fifo_errors", "tx_heartbeat_errors",
                "tx_timeout_count", "tx_restart_queue", "rx_length_errors",
                "rx_long_length_errors", "rx_short_length_errors", "tx_flow_control_xon",
                "rx_flow_control_xon", "tx_flow_control_xoff", "rx_flow_control_xoff",
                "rx_csum_offload_errors", "alloc_rx_page", "alloc_rx_page_failed",
                "alloc_rx_buff_failed", "rx_no_dma_resources", "os2bmc_rx_by_bmc",
                "os2bmc_tx_by_bmc", "os2bmc_tx_by_host", "os2bmc_rx_by_host",
                "tx_hwtstamp_timeouts", "tx_hwtstamp_skipped", "rx_hwtstamp_cleared",
                "tx_ipsec", "rx_ipsec", "rx_ipsec_failed"]


def ixgbe_ethtool(t):
    rxq, txq = t["eth1_rx_q"], t["eth1_tx_q"]
    rx, tx = sum(rxq), sum(txq)
    v = dict(rx_packets=rx, tx_packets=tx, rx_bytes=rx * ETH1_RX_SIZE,
             tx_bytes=tx * ETH1_TX_SIZE, rx_pkts_nic=rx + t["eth1_missed"],
             tx_pkts_nic=tx, rx_bytes_nic=(rx + t["eth1_missed"]) * (ETH1_RX_SIZE + 4),
             tx_bytes_nic=tx * (ETH1_TX_SIZE + 4), lsc_int=2, rx_errors=t["eth1_missed"],
             rx_missed_errors=t["eth1_missed"], fdir_miss=rx, alloc_rx_page=4096 * 16 + 771,
             tx_restart_queue=58, tx_busy=0)
    out = [(n, v.get(n, 0)) for n in IXGBE_GLOBAL]
    for i in range(64):  # netdev->num_tx_queues = 64; 16 in use
        out += [("tx_queue_%d_packets" % i, txq[i] if i < 16 else 0),
                ("tx_queue_%d_bytes" % i, txq[i] * ETH1_TX_SIZE if i < 16 else 0)]
    for i in range(64):
        out += [("rx_queue_%d_packets" % i, rxq[i] if i < 16 else 0),
                ("rx_queue_%d_bytes" % i, rxq[i] * ETH1_RX_SIZE if i < 16 else 0)]
    for d in ("tx", "rx"):
        for i in range(8):
            out += [("%s_pb_%d_pxon" % (d, i), 0), ("%s_pb_%d_pxoff" % (d, i), 0)]
    return out


# --------------------------------------------------------------- write ------
def write_sys(root, devs, traffic):
    for addr in sorted(devs):
        d = devs[addr]
        write_pci_function(root, addr, dev_path(addr), d["config"],
                           pci_attrs(d["config"], d["irq"], numa(addr), d["subsystem"],
                                     link=d["pcie"]),
                           d["driver"], IRQS.msi.get(addr, []))
    stats = netdev_stats(traffic)
    for name, ifindex, addr, oper in NETDEVS:
        write_netdev(root, name, ifindex, dict(operstate=oper), stats[name],
                     pci=(addr, dev_path(addr)) if addr else None)


def main():
    root = output_root()
    build_irqs()
    named = build_named()
    traffic = build_traffic()
    threads = build_threads()
    rows = build_cpu_times(threads)
    softnet_text, processed, squeeze = build_softnet(traffic)
    sirq = build_softirqs(squeeze)
    write_procfs(root, IRQS, named, rows, sirq, softnet_text, proc_snmp(traffic),
                 proc_netstat(traffic), pressure=(3.41, 3.12, 2.87, 1722093311),
                 ctxt=UPTIME_S * 412000 + 77123, btime=BTIME, processes=2391844,
                 procs_running=41)
    write_daemon(root, UDPECHO_PID, threads, UDPECHO_START, **UDPECHO_IMAGE)
    devs = build_pci()
    write_sys(root, devs, traffic)
    write(root, "ethtool/eth0", ethtool_text(mlx5_ethtool(traffic)))
    write(root, "ethtool/eth1", ethtool_text(ixgbe_ethtool(traffic)))
    keep_empty_dirs(root)
    numeric = len(IRQS)
    print("numeric IRQ lines: %d, max IRQ %d" % (numeric, max(i.num for i in IRQS)))
    print("eth0 rx %d tx %d; eth1 rx %d tx %d" % (sum(traffic["eth0_rx_q"]),
                                                   sum(traffic["eth0_tx_q"]),
                                                   sum(traffic["eth1_rx_q"]),
                                                   sum(traffic["eth1_tx_q"])))


if __name__ == "__main__":
    main()
