#!/usr/bin/env python3
"""Generates the "pcie-box" fixture tree (tests/fixtures/pcie-box).

A modelled one-socket PCIe Gen4 server (AMD EPYC 7313P, 16 cores / 32 threads,
Supermicro H12SSL-i style) as Debian 12's Linux 6.1 (amd64) shows it:
- NIC A: Intel X710-DA2 (i40e, 8086:1572, Gen3 x8 capable) in an x8 slot whose
  link trained at x4 (8 GT/s x4), functions 0000:41:00.0/.1 = enp65s0f0/enp65s0f1,
  root port 0000:40:01.1 directly above it, MPS 256 / MRRS 512, correctable AER
  errors on that link;
- NIC B: Mellanox ConnectX-6 Dx (mlx5_core, 15b3:101d, Gen4 x16) behind a Broadcom
  PEX88096 Gen4 switch (1000:c010) under root port 0000:80:01.1, functions
  0000:83:00.0/.1 = enp131s0f0np0/enp131s0f1np1, MPS 512 / MRRS 4096, every link
  16 GT/s x16; a Samsung PM9A3 NVMe drive (Gen4 x4) on a second downstream port of
  the same switch shares the switch uplink.
Every PCIe function has a 4096-byte config (decodable with `lspci -F`) whose PCIe
capability matches the sysfs link attributes, and an AER extended capability.

Deterministic: all variation comes from random.Random(SEED). Standard library only,
plus the shared helpers in scripts/fixture_lib.py next to this file.
Usage: python3 scripts/gen-pcie-box.py tests/fixtures/pcie-box
"""

import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fixture_lib import (PCIE_DOWNSTREAM, PCIE_ENDPOINT, PCIE_ROOT_PORT, PCIE_UPSTREAM, ST_CAP,
                         IrqTable, acs_capability, aer_capability, aer_dev_text,
                         ari_capability, bridge_bus_numbers, bridge_windows, cpu_ticks,
                         dsn_capability, ethtool_text, header, ip_ledger, keep_empty_dirs,
                         msi_cap, msi_hwirq, msix_capability, output_root, pci_attrs,
                         pcie_capability, pm_cap, proc_net_netstat, proc_net_snmp,
                         secondary_pcie_capability, softnet_stat, spread, ssvid_capability,
                         worker_threads, write, write_daemon, write_netdev, write_pci_function,
                         write_procfs)

SEED = 20230610            # Debian 12 release date
NCPU = 32
UPTIME_S = 15217           # 4 h 13 min 37 s: every 32-bit kernel counter stays below 2^32
USER_HZ = 100
TICKS = UPTIME_S * USER_HZ
BTIME = 1717405200
# x86 nr_irqs with 32 CPUs: (gsi_top + 16) + 8 x 32 + 16 x gsi_top, gsi_top = 152 (FCH
# IO-APIC 24 pins + four NBIO IO-APICs of 32). >= 1000, so /proc/interrupts pads IRQ
# numbers to 4 digits; the first dynamic (MSI) IRQ is gsi_top.
GSI_TOP = 152
NR_IRQS = (GSI_TOP + 16) + 8 * NCPU + 16 * GSI_TOP

rng = random.Random(SEED)

# ------------------------------------------------------------------ PCI -----
RC00, RC40, RC80 = "0000:00:00.0", "0000:40:00.0", "0000:80:00.0"   # root complexes
SMBUS = "0000:00:14.0"
RP_A, RP_B = "0000:40:01.1", "0000:80:01.1"                          # root ports
USP, DSP_NIC, DSP_NVME = "0000:81:00.0", "0000:82:08.0", "0000:82:09.0"  # PEX88096
A0, A1 = "0000:41:00.0", "0000:41:00.1"                              # X710
B0, B1 = "0000:83:00.0", "0000:83:00.1"                              # ConnectX-6 Dx
NVME = "0000:84:00.0"                                                # PM9A3
PARENT = {A0: RP_A, A1: RP_A, USP: RP_B, DSP_NIC: USP, DSP_NVME: USP, B0: DSP_NIC,
          B1: DSP_NIC, NVME: DSP_NVME}


def dev_path(addr):
    """sysfs path below sys/devices: pci0000:BB/<port>/.../<addr>."""
    chain = [addr]
    while chain[-1] in PARENT:
        chain.append(PARENT[chain[-1]])
    return "pci0000:%s/" % chain[-1][5:7] + "/".join(reversed(chain))


# ------------------------------------------------------------ IRQ table -----
IRQS = IrqTable(NCPU, NR_IRQS, first_dynamic=GSI_TOP)


def msi(addr, kind, index, actions):
    # Linux 6.1 x86: one global "IR-PCI-MSI" domain for MSI and MSI-X (per-device
    # domains came in 6.2); hwirq encodes the requester ID and the entry index.
    return IRQS.add_msi(addr, kind, "IR-PCI-MSI", msi_hwirq(addr, index), actions)


# Link errors on the x4-trained link of NIC A (counted by the kernel per reporting
# function; the kernel prints one line per named status bit).
AER_COR = {
    RP_A: {"RxErr": 389, "BadTLP": 2041, "BadDLLP": 177, "Timeout": 12},
    A0: {"BadTLP": 1432, "BadDLLP": 611, "Rollover": 17, "Timeout": 96},
}
RP_A_AER_MSGS = sum(AER_COR[RP_A].values()) + sum(AER_COR[A0].values())  # ERR_COR messages

NIC_CPU = list(range(NCPU))      # queue i of every NIC function on CPU i
WORKER_CPUS = list(range(16, 32))  # udpecho workers (SMT siblings of CPUs 0-15)

FUNCS = [  # the four NIC functions and their mean traffic over the uptime
    dict(ifname="enp65s0f0", addr=A0, driver="i40e", rx_pps=1.20e6, tx=(0.92, 0.96),
         rx_size=712, tx_size=698, irq_rate=(9000, 13000), mac="40:a6:b7:2e:4c:90",
         speed=10000, ifindex=2),
    dict(ifname="enp65s0f1", addr=A1, driver="i40e", rx_pps=0.38e6, tx=(0.90, 0.95),
         rx_size=904, tx_size=880, irq_rate=(4000, 7000), mac="40:a6:b7:2e:4c:91",
         speed=10000, ifindex=3),
    dict(ifname="enp131s0f0np0", addr=B0, driver="mlx5_core", rx_pps=2.10e6,
         tx=(0.93, 0.97), rx_size=1108, tx_size=1094, irq_rate=(6000, 10000),
         mac="b8:ce:f6:5a:31:e2", speed=100000, ifindex=4),
    dict(ifname="enp131s0f1np1", addr=B1, driver="mlx5_core", rx_pps=0.55e6,
         tx=(0.90, 0.96), rx_size=1388, tx_size=1370, irq_rate=(2000, 5000),
         mac="b8:ce:f6:5a:31:e3", speed=100000, ifindex=5),
]
NQ = 32  # queue pairs / channels per NIC function (one per CPU)
I40E_VSI_DROPS = {A0: 1207, A1: 0}        # netdev rx_dropped (VSI rx_discards)
I40E_PORT_DROPS = {A0: 48113, A1: 3377}   # port.rx_dropped: port buffer full
MCAST = {A0: 2210, A1: 2207, B0: 1981, B1: 1979}
BCAST = {A0: 5120, A1: 5117, B0: 311, B1: 309}
LO_PKTS, LO_SIZE = 3120455, 240


def build_traffic():
    for f in FUNCS:
        per_q = f["rx_pps"] * UPTIME_S / NQ
        f["rxq"] = [int(per_q * rng.uniform(0.85, 1.15)) for _ in range(NQ)]
        f["txq"] = [int(p * rng.uniform(*f["tx"])) for p in f["rxq"]]
        f["rx"], f["tx_pkts"] = sum(f["rxq"]), sum(f["txq"])


def build_irqs():
    IRQS.add("IR-IO-APIC", 2, "edge", ["timer"], num=0).counts[0] = 41
    IRQS.add("IR-IO-APIC", 4, "edge", ["ttyS0"], num=4).counts[3] = 612
    IRQS.add("IR-IO-APIC", 8, "edge", ["rtc0"], num=8).counts[0] = 1
    IRQS.add("IR-IO-APIC", 9, "fasteoi", ["acpi"], num=9)
    # Root ports: PME and AER share one MSI vector; every ERR_COR message from the
    # link of NIC A raised one AER interrupt (no coalescing modelled).
    msi(RP_A, "msi", 0, ["PCIe PME", "aerdrv"]).counts[9] = RP_A_AER_MSGS
    msi(RP_B, "msi", 0, ["PCIe PME", "aerdrv"])
    q0 = msi(NVME, "msix", 0, ["nvme0q0"])
    q0.counts[0], q0.counts[rng.randrange(NCPU)] = 37, 1214
    for q in range(1, NCPU + 1):  # managed affinity: queue q on CPU q-1
        msi(NVME, "msix", q, ["nvme0q%d" % q]).counts[q - 1] = rng.randrange(1500000, 4000000)
    for f in FUNCS:
        addr = f["addr"]
        if f["driver"] == "i40e":
            misc = msi(addr, "msix", 0, ["i40e-%s:misc" % addr])
            misc.counts[0] = rng.randrange(2900, 3400)
            names = ["i40e-%s-TxRx-%d" % (f["ifname"], i) for i in range(NQ)]
        else:
            a = msi(addr, "msix", 0, ["mlx5_async0@pci:%s" % addr])
            a.counts[0], a.counts[rng.randrange(NCPU)] = 1873, 4090
            names = ["mlx5_comp%d@pci:%s" % (i, addr) for i in range(NQ)]
        f["irqs"] = []
        for i, name in enumerate(names):
            irq = msi(addr, "msix", i + 1, [name])
            irq.counts[NIC_CPU[i]] = rng.randrange(*f["irq_rate"]) * UPTIME_S // 1
            irq.counts[0] += rng.randrange(0, 50)  # before the affinity hint was applied
            f["irqs"].append(irq)


def build_named():
    nmi = [rng.randrange(1480, 1530) for _ in range(NCPU)]  # perf NMI watchdog
    named = {"NMI": nmi, "PMI": list(nmi),
             "LOC": [rng.randrange(3000000, 3800000) for _ in range(NCPU)],  # HZ 250
             "IWI": [rng.randrange(0, 30) for _ in range(NCPU)],
             "RES": [rng.randrange(150000, 900000) for _ in range(NCPU)],
             "CAL": [rng.randrange(10000, 60000) for _ in range(NCPU)],
             "TLB": [rng.randrange(1000, 40000) for _ in range(NCPU)],
             "MCP": [UPTIME_S // 300 + 1] * NCPU}
    return named  # the other named lines are 0


# ------------------------------------------------------------ /proc/stat ----
def build_cpu_times(threads):
    rows = []
    for c in range(NCPU):
        total = TICKS + rng.randrange(-20, 21)
        f = dict(user=rng.uniform(0.05, 0.09), nice=rng.uniform(0, 0.002),
                 system=rng.uniform(0.04, 0.06), iowait=rng.uniform(0.001, 0.004),
                 irq=0.012, softirq=0.11)
        rows.append(cpu_ticks(rng, total, f, threads, c))
    return rows


# ------------------------------------------------------ softirqs, softnet ---
def build_softnet():
    processed = [0] * NCPU
    squeeze = [rng.randrange(2000, 40000) for _ in range(NCPU)]
    for f in FUNCS:
        for i, c in enumerate(NIC_CPU):
            processed[c] += f["rxq"][i]
    spread(LO_PKTS, list(range(NCPU)), processed)  # lo: the backlog of the sending CPU
    return softnet_stat(processed, squeeze), processed, squeeze


def build_softirqs(squeeze):
    net_rx = [0] * NCPU
    block = [0] * NCPU
    for irq in IRQS:
        a = irq.actions[0]
        for c in range(NCPU):
            if a.startswith(("mlx5_comp", "i40e-enp")):
                net_rx[c] += irq.counts[c]
            elif a.startswith("nvme0q") and a != "nvme0q0":
                block[c] += irq.counts[c] // 20
    return [
        ("HI", [rng.randrange(0, 20) for _ in range(NCPU)]),
        ("TIMER", [rng.randrange(400000, 1200000) for _ in range(NCPU)]),
        ("NET_TX", [rng.randrange(20000, 120000) for _ in range(NCPU)]),
        ("NET_RX", [net_rx[c] + squeeze[c] + rng.randrange(10000, 40000) for c in range(NCPU)]),
        ("BLOCK", [block[c] + rng.randrange(0, 200) for c in range(NCPU)]),
        ("IRQ_POLL", [0] * NCPU),
        ("TASKLET", [rng.randrange(0, 2000) for _ in range(NCPU)]),
        ("SCHED", [rng.randrange(600000, 2400000) for _ in range(NCPU)]),
        ("HRTIMER", [rng.randrange(0, 900) for _ in range(NCPU)]),
        ("RCU", [rng.randrange(400000, 1500000) for _ in range(NCPU)]),
    ]


# ------------------------------------------------------- snmp / netstat -----
UDP_RCVBUF, UDP_NOPORTS, UDP_IGNORED = 48977, 1201, 31044
ICMP_IN, ICMP_OUT = 5120, 4210
TCP_RETRANS = 91233


def ip_counts():
    rx = sum(f["rx"] for f in FUNCS)
    tx = sum(f["tx_pkts"] for f in FUNCS)
    return ip_ledger(rx, tx, LO_PKTS, LO_PKTS, rx // 40, tx // 42, TCP_RETRANS, ICMP_IN,
                     ICMP_OUT, UDP_NOPORTS, UDP_RCVBUF, UDP_IGNORED)


def proc_snmp():
    c = ip_counts()
    return proc_net_snmp(
        "6.1", ip=dict(Forwarding=2, InReceives=c["in_receives"], InDelivers=c["in_receives"],
                       OutRequests=c["out_requests"]),
        icmp=dict(InMsgs=ICMP_IN, InDestUnreachs=3090, InEchos=2030, OutMsgs=ICMP_OUT,
                  OutDestUnreachs=ICMP_OUT - 2030, OutEchoReps=2030),
        icmpmsg=dict(InType3=3090, InType8=2030, OutType0=2030, OutType3=ICMP_OUT - 2030),
        tcp=dict(ActiveOpens=88213, PassiveOpens=712044, AttemptFails=611, EstabResets=2210,
                 CurrEstab=941, InSegs=c["tcp_in"], OutSegs=c["tcp_out"],
                 RetransSegs=TCP_RETRANS, InErrs=7, OutRsts=4012),
        udp=c["udp"])


def proc_netstat():
    tcpext = dict(TW=702113, DelayedACKs=1021442, TCPHPHits=5120331, TCPPureAcks=2210394,
                  TCPHPAcks=3902113, TCPTimeouts=8112, TCPLossProbes=6021,
                  TCPBacklogCoalesce=120331, TCPRcvCoalesce=901223, TCPOFOQueue=12044,
                  TCPAutoCorking=180221, TCPOrigDataSent=10120443, TCPDelivered=10201332,
                  TCPKeepAlive=18044)
    in_oct = sum(f["rx"] * (f["rx_size"] - 14) for f in FUNCS) + LO_PKTS * (LO_SIZE - 14)
    out_oct = sum(f["tx_pkts"] * (f["tx_size"] - 14) for f in FUNCS) + LO_PKTS * (LO_SIZE - 14)
    mc, bc = sum(MCAST.values()), sum(BCAST.values())
    return proc_net_netstat("6.1", tcpext, dict(
        InMcastPkts=mc, InBcastPkts=bc, InOctets=in_oct, OutOctets=out_oct,
        InMcastOctets=mc * 40, InBcastOctets=bc * 96, InNoECTPkts=ip_counts()["in_receives"]))


# ------------------------------------------------------------- threads ------
UDPECHO_PID = 2741
# The process image of udpecho (task stat fields): faults, sizes, addresses.
UDPECHO_IMAGE = dict(minflt=9120, majflt=2, vsize=1174405120, rss=12044,
                     code=(94371207946240, 94371208121873), stack=140726401129120,
                     data=(94371208184368, 94371208190176), brk=94371215147008,
                     args=(140726401136537, 140726401136560),
                     env=(140726401136560, 140726401138651))
UDPECHO_START = 29000  # starttime of the main thread, ticks after boot


def build_threads():
    return worker_threads(rng, UDPECHO_PID, "udpecho", (2211, 1804), WORKER_CPUS,
                          (UPTIME_S - 300) * USER_HZ, (0.12, 0.15), (0.20, 0.24))


def proc_diskstats():
    """nvme0n1 (6.1: 17 counters): one interrupt per completion, 70 % 128 KiB reads,
    30 % 32 KiB writes."""
    done = sum(sum(i.counts) for i in IRQS if i.actions[0].startswith("nvme0q")
               and i.actions[0] != "nvme0q0")
    reads = done * 7 // 10
    writes = done - reads
    vals = [reads, 1021, reads * 256, reads // 9, writes, 40312, writes * 64, writes // 14,
            0, UPTIME_S * 1000 // 3, reads // 9 + writes // 14, 0, 0, 0, 0, 7219, 812]
    return "%4d %7d %s %s\n" % (259, 0, "nvme0n1", " ".join(map(str, vals)))


# --------------------------------------------------------- PCI config -------
def cfg(vendor, device, command, rev, class_code, htype, status=ST_CAP, size=4096):
    return header(vendor, device, command, status, rev, class_code, htype, size=size)


def bar64(c, off, addr, prefetch=True):
    c.u32(off, (addr & 0xffffffff) | (0xc if prefetch else 0x4))
    c.u32(off + 4, addr >> 32)


# Legacy INTx GSIs (NBIO IO-APIC pins from the _PRT): kept in pdev->irq and shown
# by sysfs "irq" for devices using MSI-X or nothing; never requested.
INTX_GSI = {A0: 59, A1: 60, USP: 91, DSP_NIC: 92, DSP_NVME: 93, B0: 94, B1: 95, NVME: 96}
X710_PREF = 0x20000000000     # BAR0 8 MiB + BAR3 32 KiB per function
CX6_PREF = 0x30000000000      # BAR0 32 MiB per function
NVME_MEM, USP_MEM = 0xc0000000, 0xc0100000
SSID = {A0: (0x8086, 0x0007), A1: (0x8086, 0x0007), B0: (0x15b3, 0x0016),
        B1: (0x15b3, 0x0016), NVME: (0x144d, 0xa813)}


def root_port(addr, sec, sub, width, cur, slot, mps, windows, ari_below):
    """AMD Starship/Matisse GPP bridge (1022:1483), Gen4 capable."""
    c = cfg(0x1022, 0x1483, 0x0546, 0x00, 0x060400, 0x01)
    bridge_bus_numbers(c, int(addr[5:7], 16), sec, sub)
    bridge_windows(c, **windows)
    c.u8(0x34, 0x50)
    c.u8(0x3c, 0xff)
    c.u8(0x3d, 1)
    c.u16(0x3e, 0x0002)  # Bridge Control: SERR# forwarding
    pm_cap(c, 0x50, 0x58, 0xc803, 0x0008)
    pcie_capability(c, 0x58, 0xa0, PCIE_ROOT_PORT, 512, mps, 512, 16.0, width, cur[0],
                    cur[1], aspm=2, l1_exit=6, dll_active=True, slot=slot,
                    devcap2=0x00110bff, devctl2=0x0020 if ari_below else 0)
    msi_cap(c, 0xa0, 0xc0, True)
    ssvid_capability(c, 0xc0, 0x00, 0x1022, 0x1483)
    aer_capability(c, 0x100, 0x140, root_port=True)
    acs_capability(c, 0x140, 0x150)
    secondary_pcie_capability(c, 0x150, 0x000, width)
    return c


def switch_port(addr, port_type, sec, sub, width, port_no, slot, windows, ari_below=False):
    """Broadcom PEX88096 port (1000:c010, subsystem 1000:a096): upstream (type 5) or
    downstream (type 6). MPS 512 everywhere on NIC B's path."""
    c = cfg(0x1000, 0xc010, 0x0146, 0xb0, 0x060400, 0x01)
    if port_type == PCIE_UPSTREAM:
        c.u32(0x10, USP_MEM)  # BAR0: 256 KiB of switch registers
    bridge_bus_numbers(c, int(addr[5:7], 16), sec, sub)
    bridge_windows(c, **windows)
    c.u8(0x34, 0x40)
    c.u8(0x3c, INTX_GSI[addr] & 0xff)
    c.u8(0x3d, 1)
    c.u16(0x3e, 0x0002)
    pm_cap(c, 0x40, 0x48, 0xc803, 0x0008)
    msi_cap(c, 0x48, 0x68, False, mmc=3, maskable=True)
    pcie_capability(c, 0x68, 0xa4, port_type, 2048, 512, 512, 16.0, width, 16.0, width,
                    port_no=port_no, aspm=2, l1_exit=5,
                    dll_active=port_type == PCIE_DOWNSTREAM, slot=slot, devcap2=0x00000860,
                    devctl2=0x0020 if ari_below else 0, relaxed_ordering=False,
                    no_snoop=False)
    ssvid_capability(c, 0xa4, 0x00, 0x1000, 0xa096)
    aer_capability(c, 0x100, 0x140)
    if port_type == PCIE_DOWNSTREAM:
        acs_capability(c, 0x140, 0x148)
        secondary_pcie_capability(c, 0x148, 0x000, width)
    else:
        secondary_pcie_capability(c, 0x140, 0x000, width)
    return c


def x710(fn):
    addr = (A0, A1)[fn]
    c = cfg(0x8086, 0x1572, 0x0406, 0x02, 0x020000, 0x80)
    bar64(c, 0x10, X710_PREF + fn * 0x800000)
    bar64(c, 0x1c, X710_PREF + 0x1000000 + fn * 0x8000)  # BAR3
    c.u16(0x2c, 0x8086)
    c.u16(0x2e, 0x0007)
    c.u8(0x34, 0x40)
    c.u8(0x3c, INTX_GSI[addr] & 0xff)
    c.u8(0x3d, 1 + fn)
    pm_cap(c, 0x40, 0x50, 0xc823, 0x0008)
    msi_cap(c, 0x50, 0x70, False, maskable=True)
    msix_capability(c, 0x70, 0xa0, 129, table_bir=3, table_off=0, pba_bir=3, pba_off=0x1000)
    pcie_capability(c, 0xa0, 0x00, PCIE_ENDPOINT, 2048, 256, 512, 8.0, 8, 8.0, 4,
                    aspm=2, l1_exit=4, l0s_accept=3, l1_accept=6, flr=True)
    aer_capability(c, 0x100, 0x140)
    dsn_capability(c, 0x140, 0x150, 0x40a6b7ffff2e4c90)
    ari_capability(c, 0x150, 0x160, 1 if fn == 0 else 0)
    secondary_pcie_capability(c, 0x160, 0x000, 8)
    return c


def connectx6dx(fn):
    addr = (B0, B1)[fn]
    c = cfg(0x15b3, 0x101d, 0x0406, 0x00, 0x020000, 0x80)
    bar64(c, 0x10, CX6_PREF + fn * 0x2000000)
    c.u16(0x2c, 0x15b3)
    c.u16(0x2e, 0x0016)
    c.u8(0x34, 0x60)
    c.u8(0x3c, INTX_GSI[addr] & 0xff)
    c.u8(0x3d, 1)
    pcie_capability(c, 0x60, 0x9c, PCIE_ENDPOINT, 512, 512, 4096, 16.0, 16, 16.0, 16,
                    flr=True, devcap2=0x0003039f)
    msix_capability(c, 0x9c, 0x40, 64)
    pm_cap(c, 0x40, 0x00, 0x0003, 0x0008)
    aer_capability(c, 0x100, 0x140)
    dsn_capability(c, 0x140, 0x150, 0xb8cef603005a31e2)
    ari_capability(c, 0x150, 0x160, 1 if fn == 0 else 0)
    secondary_pcie_capability(c, 0x160, 0x000, 16)
    return c


def pm9a3():
    c = cfg(0x144d, 0xa80a, 0x0406, 0x00, 0x010802, 0x00)
    bar64(c, 0x10, NVME_MEM, prefetch=False)
    c.u16(0x2c, 0x144d)
    c.u16(0x2e, 0xa813)
    c.u8(0x34, 0x40)
    c.u8(0x3c, INTX_GSI[NVME] & 0xff)
    c.u8(0x3d, 1)
    pm_cap(c, 0x40, 0x50, 0x0003, 0x0008)
    msi_cap(c, 0x50, 0x70, False, mmc=5, maskable=True)
    pcie_capability(c, 0x70, 0xb0, PCIE_ENDPOINT, 512, 512, 512, 16.0, 4, 16.0, 4,
                    aspm=2, l1_exit=6, flr=True, devcap2=0x0000081f)
    msix_capability(c, 0xb0, 0x00, 130, table_off=0x3000, pba_off=0x2000)
    aer_capability(c, 0x100, 0x148)
    dsn_capability(c, 0x148, 0x158, 0x002538b111b02a41)
    secondary_pcie_capability(c, 0x158, 0x000, 4)
    return c


def build_pci():
    """address -> dict(config, subsystem, irq, driver, pcie, bus=(sec, sub) for bridges,
    aer=bool, root_port=bool)."""
    devs = {}

    def add(addr, c, driver, pcie, irq, ssid=(0, 0), bus=None, rp=False):
        devs[addr] = dict(config=c, subsystem=ssid, irq=irq, driver=driver, pcie=pcie, bus=bus,
                          aer=pcie is not None, root_port=rp)

    for rc in (RC00, RC40, RC80):  # AMD root complexes: no capabilities
        c = cfg(0x1022, 0x1480, 0x0000, 0x00, 0x060000, 0x00, status=0x0000, size=256)
        c.u16(0x2c, 0x15d9)
        c.u16(0x2e, 0x1b95)
        add(rc, c, None, None, 0, ssid=(0x15d9, 0x1b95))
    c = cfg(0x1022, 0x790b, 0x0403, 0x61, 0x0c0500, 0x80, status=0x0220, size=256)
    c.u16(0x2c, 0x15d9)
    c.u16(0x2e, 0x1b95)
    add(SMBUS, c, "piix4_smbus", None, 0, ssid=(0x15d9, 0x1b95))

    x710_pref = (X710_PREF, X710_PREF + 0x1ffffff)
    cx6_pref = (CX6_PREF, CX6_PREF + 0x3ffffff)
    add(RP_A, root_port(RP_A, 0x41, 0x41, 8, (8.0, 4), (3, 75), 256, dict(pref=x710_pref),
                        True), "pcieport", (16.0, 8, 8.0, 4), IRQS.msi[RP_A][0][0],
        ssid=(0x1022, 0x1483), bus=(0x41, 0x41), rp=True)
    add(RP_B, root_port(RP_B, 0x81, 0x84, 16, (16.0, 16), (1, 75), 512,
                        dict(mem=(NVME_MEM, USP_MEM + 0xfffff), pref=cx6_pref), False),
        "pcieport", (16.0, 16, 16.0, 16), IRQS.msi[RP_B][0][0], ssid=(0x1022, 0x1483),
        bus=(0x81, 0x84), rp=True)
    add(USP, switch_port(USP, PCIE_UPSTREAM, 0x82, 0x84, 16, 0, None,
                         dict(mem=(NVME_MEM, NVME_MEM + 0xfffff), pref=cx6_pref)),
        "pcieport", (16.0, 16, 16.0, 16), INTX_GSI[USP], ssid=(0x1000, 0xa096),
        bus=(0x82, 0x84))
    add(DSP_NIC, switch_port(DSP_NIC, PCIE_DOWNSTREAM, 0x83, 0x83, 16, 8, (8, 75),
                             dict(pref=cx6_pref), ari_below=True),
        "pcieport", (16.0, 16, 16.0, 16), INTX_GSI[DSP_NIC], ssid=(0x1000, 0xa096),
        bus=(0x83, 0x83))
    add(DSP_NVME, switch_port(DSP_NVME, PCIE_DOWNSTREAM, 0x84, 0x84, 4, 9, (9, 25),
                              dict(mem=(NVME_MEM, NVME_MEM + 0xfffff))),
        "pcieport", (16.0, 4, 16.0, 4), INTX_GSI[DSP_NVME], ssid=(0x1000, 0xa096),
        bus=(0x84, 0x84))
    for fn, addr in enumerate((A0, A1)):
        add(addr, x710(fn), "i40e", (8.0, 8, 8.0, 4), INTX_GSI[addr], ssid=SSID[addr])
    for fn, addr in enumerate((B0, B1)):
        add(addr, connectx6dx(fn), "mlx5_core", (16.0, 16, 16.0, 16), INTX_GSI[addr],
            ssid=SSID[addr])
    add(NVME, pm9a3(), "nvme", (16.0, 4, 16.0, 4), INTX_GSI[NVME], ssid=SSID[NVME])
    return devs


# ----------------------------------------------------------- netdevs --------
def netdev_stats(f):
    addr = f["addr"]
    s = dict(rx_packets=f["rx"], tx_packets=f["tx_pkts"], rx_bytes=f["rx"] * f["rx_size"],
             tx_bytes=f["tx_pkts"] * f["tx_size"], multicast=MCAST[addr])
    if f["driver"] == "i40e":
        s["rx_dropped"] = I40E_VSI_DROPS[addr]  # i40e: hardware drops here, missed = 0
    return s


def i40e_ethtool(f):
    addr = f["addr"]
    s = netdev_stats(f)
    rx, tx = f["rx"], f["tx_pkts"]
    net = ["rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
           "rx_dropped", "tx_dropped", "collisions", "rx_length_errors", "rx_crc_errors"]
    out = [(n, s.get(n, 0)) for n in net]
    misc = dict(rx_unicast=rx - MCAST[addr] - BCAST[addr], tx_unicast=tx - 40,
                rx_multicast=MCAST[addr], tx_multicast=31, rx_broadcast=BCAST[addr],
                tx_broadcast=9, rx_unknown_protocol=0, tx_linearize=0, tx_force_wb=0,
                tx_busy=0, rx_alloc_fail=0, rx_pg_alloc_fail=0)
    out += list(misc.items())
    for i in range(NQ):
        out += [("tx-%d.packets" % i, f["txq"][i]),
                ("tx-%d.bytes" % i, f["txq"][i] * f["tx_size"]),
                ("rx-%d.packets" % i, f["rxq"][i]),
                ("rx-%d.bytes" % i, f["rxq"][i] * f["rx_size"])]
    for n in ("rx_bytes", "tx_bytes", "rx_unicast", "tx_unicast", "rx_multicast",
              "tx_multicast", "rx_broadcast", "tx_broadcast", "rx_discards", "tx_discards",
              "tx_errors", "rx_unknown_protocol"):
        out.append(("veb." + n, 0))
    for tc in range(8):
        out += [("veb.tc_%d_%s" % (tc, n), 0) for n in ("tx_packets", "tx_bytes",
                                                        "rx_packets", "rx_bytes")]
    # Port (MAC) counters: every good frame the port took in, FCS included, before the
    # VSI and packet-buffer drops.
    port_rx = rx + I40E_VSI_DROPS[addr] + I40E_PORT_DROPS[addr]
    port = [("port.rx_bytes", port_rx * (f["rx_size"] + 4)),
            ("port.tx_bytes", tx * (f["tx_size"] + 4)),
            ("port.rx_unicast", port_rx - MCAST[addr] - BCAST[addr]),
            ("port.tx_unicast", tx - 40), ("port.rx_multicast", MCAST[addr]),
            ("port.tx_multicast", 31), ("port.rx_broadcast", BCAST[addr]),
            ("port.tx_broadcast", 9), ("port.tx_errors", 0),
            ("port.rx_dropped", I40E_PORT_DROPS[addr]), ("port.tx_dropped_link_down", 0),
            ("port.rx_crc_errors", 0), ("port.illegal_bytes", 0),
            ("port.mac_local_faults", 1), ("port.mac_remote_faults", 1),
            ("port.tx_timeout", 0), ("port.rx_csum_bad", 0), ("port.rx_length_errors", 0),
            ("port.link_xon_rx", 0), ("port.link_xoff_rx", 0), ("port.link_xon_tx", 0),
            ("port.link_xoff_tx", 0)]
    sizes = [0.04, 0.21, 0.07, 0.09, 0.14, 0.45, 0.0]
    for d, n_pkts in (("rx", port_rx), ("tx", tx)):
        left = n_pkts
        for j, b in enumerate(("64", "127", "255", "511", "1023", "1522", "big")):
            v = left if j == 5 else int(n_pkts * sizes[j])
            left -= v
            port.append(("port.%s_size_%s" % (d, b), v))
    port = dict(port)
    assert set(port) <= set(I40E_PORT_ORDER)
    out += [(n, port.get(n, 0)) for n in I40E_PORT_ORDER]
    for p in range(8):
        out += [("port.tx_priority_%d_xon_tx" % p, 0), ("port.tx_priority_%d_xoff_tx" % p, 0),
                ("port.rx_priority_%d_xon_rx" % p, 0), ("port.rx_priority_%d_xoff_rx" % p, 0),
                ("port.rx_priority_%d_xon_2_xoff" % p, 0)]
    return out


# i40e_gstrings_stats order (drivers/net/ethernet/intel/i40e/i40e_ethtool.c, 6.1).
I40E_PORT_ORDER = (
    "port.rx_bytes port.tx_bytes port.rx_unicast port.tx_unicast port.rx_multicast "
    "port.tx_multicast port.rx_broadcast port.tx_broadcast port.tx_errors port.rx_dropped "
    "port.tx_dropped_link_down port.rx_crc_errors port.illegal_bytes "
    "port.mac_local_faults port.mac_remote_faults port.tx_timeout port.rx_csum_bad "
    "port.rx_length_errors port.link_xon_rx port.link_xoff_rx port.link_xon_tx "
    "port.link_xoff_tx port.rx_size_64 port.rx_size_127 port.rx_size_255 port.rx_size_511 "
    "port.rx_size_1023 port.rx_size_1522 port.rx_size_big port.tx_size_64 port.tx_size_127 "
    "port.tx_size_255 port.tx_size_511 port.tx_size_1023 port.tx_size_1522 "
    "port.tx_size_big port.rx_undersize port.rx_fragments port.rx_oversize port.rx_jabber "
    "port.VF_admin_queue_requests port.arq_overflows port.tx_hwtstamp_timeouts "
    "port.rx_hwtstamp_cleared port.tx_hwtstamp_skipped port.fdir_flush_cnt "
    "port.fdir_atr_match port.fdir_atr_tunnel_match port.fdir_atr_status "
    "port.fdir_sb_match port.fdir_sb_status port.tx_lpi_status port.rx_lpi_status "
    "port.tx_lpi_count port.rx_lpi_count").split()


def mlx5_ethtool(f):
    addr = f["addr"]
    rx, tx = f["rx"], f["tx_pkts"]
    g = [("rx_packets", rx), ("rx_bytes", rx * f["rx_size"]), ("tx_packets", tx),
         ("tx_bytes", tx * f["tx_size"]), ("tx_tso_packets", 0), ("tx_tso_bytes", 0),
         ("rx_csum_unnecessary", rx), ("rx_csum_none", 0), ("tx_csum_partial", tx),
         ("tx_queue_stopped", 0), ("tx_queue_dropped", 0), ("tx_xmit_more", tx // 9),
         ("tx_queue_wake", 0), ("rx_wqe_err", 0), ("rx_buff_alloc_err", 0),
         ("ch_events", sum(sum(i.counts) for i in f["irqs"])),
         ("rx_out_of_buffer", 0), ("rx_if_down_packets", 0),
         ("rx_vport_unicast_packets", rx - MCAST[addr] - BCAST[addr]),
         ("rx_vport_multicast_packets", MCAST[addr]),
         ("rx_vport_broadcast_packets", BCAST[addr]),
         ("rx_packets_phy", rx), ("rx_bytes_phy", rx * (f["rx_size"] + 4)),
         ("tx_packets_phy", tx), ("tx_bytes_phy", tx * (f["tx_size"] + 4)),
         ("rx_crc_errors_phy", 0), ("rx_discards_phy", 0), ("tx_discards_phy", 0),
         ("rx_pci_signal_integrity", 0), ("tx_pci_signal_integrity", 0),
         ("outbound_pci_buffer_overflow", 0), ("outbound_pci_stalled_rd", 0),
         ("outbound_pci_stalled_wr", 0), ("outbound_pci_stalled_rd_events", 0),
         ("outbound_pci_stalled_wr_events", 0)]
    chan = []
    for i in range(NQ):
        chan.append(("ch%d_events" % i, sum(f["irqs"][i].counts)))
    for i in range(NQ):
        chan += [("rx%d_packets" % i, f["rxq"][i]),
                 ("rx%d_bytes" % i, f["rxq"][i] * f["rx_size"])]
    for i in range(NQ):
        chan += [("tx%d_packets" % i, f["txq"][i]),
                 ("tx%d_bytes" % i, f["txq"][i] * f["tx_size"])]
    return g + chan


# --------------------------------------------------------------- write ------
def write_sys(root, devs):
    for addr in sorted(devs):
        d = devs[addr]
        attrs = pci_attrs(d["config"], d["irq"], 0, d["subsystem"], link=d["pcie"],
                          revision=True, local_cpulist="0-%d" % (NCPU - 1),
                          local_cpus="%08x" % ((1 << NCPU) - 1))
        if d["bus"]:
            attrs.update(secondary_bus_number=str(d["bus"][0]),
                         subordinate_bus_number=str(d["bus"][1]))
        base = write_pci_function(root, addr, dev_path(addr), d["config"], attrs, d["driver"],
                                  IRQS.msi.get(addr, []))
        if d["aer"]:
            cor = AER_COR.get(addr, {})
            write(root, base + "/aer_dev_correctable", aer_dev_text("cor", cor))
            write(root, base + "/aer_dev_nonfatal", aer_dev_text("nonfatal"))
            write(root, base + "/aer_dev_fatal", aer_dev_text("fatal"))
        if d["root_port"]:
            below = RP_A_AER_MSGS if addr == RP_A else 0
            write(root, base + "/aer_rootport_total_err_cor", "%d\n" % below)
            write(root, base + "/aer_rootport_total_err_fatal", "0\n")
            write(root, base + "/aer_rootport_total_err_nonfatal", "0\n")
    write_netdev(root, "lo", 1, dict(operstate="unknown", address="00:00:00:00:00:00",
                                     mtu="65536", carrier="1", type="772"),
                 dict(rx_packets=LO_PKTS, tx_packets=LO_PKTS, rx_bytes=LO_PKTS * LO_SIZE,
                      tx_bytes=LO_PKTS * LO_SIZE))
    for f in FUNCS:
        write_netdev(root, f["ifname"], f["ifindex"],
                     dict(operstate="up", address=f["mac"], mtu="1500", speed=str(f["speed"]),
                          duplex="full", carrier="1", type="1"),
                     netdev_stats(f), pci=(f["addr"], dev_path(f["addr"])))
    for name in ("online", "possible", "present"):
        write(root, "sys/devices/system/cpu/" + name, "0-%d\n" % (NCPU - 1))
    write(root, "sys/devices/system/cpu/offline", "\n")
    write(root, "sys/devices/system/cpu/kernel_max", "8191\n")


def main():
    root = output_root()
    build_traffic()
    build_irqs()
    named = build_named()
    threads = build_threads()
    rows = build_cpu_times(threads)
    softnet_text, processed, squeeze = build_softnet()
    sirq = build_softirqs(squeeze)
    write_procfs(root, IRQS, named, rows, sirq, softnet_text, proc_snmp(), proc_netstat(),
                 pressure=(1.92, 2.05, 1.88, 301223871), ctxt=UPTIME_S * 231000 + 4127,
                 btime=BTIME, processes=318442, procs_running=19)
    write(root, "proc/diskstats", proc_diskstats())
    write_daemon(root, UDPECHO_PID, threads, UDPECHO_START, **UDPECHO_IMAGE)
    devs = build_pci()
    write_sys(root, devs)
    for f in FUNCS:
        text = i40e_ethtool(f) if f["driver"] == "i40e" else mlx5_ethtool(f)
        write(root, "ethtool/" + f["ifname"], ethtool_text(text))
    keep_empty_dirs(root)
    print("IRQs %d..%d (%d numeric lines), nr_irqs %d" % (
        min(i.num for i in IRQS), max(i.num for i in IRQS), len(IRQS), NR_IRQS))
    for f in FUNCS:
        print("%s rx %d tx %d" % (f["ifname"], f["rx"], f["tx_pkts"]))


if __name__ == "__main__":
    main()
