#!/usr/bin/env python3
"""Writes the hand-built "seed-box" fixture tree (tests/fixtures/seed-box).

The box of the seed mails (seeds/*), as Linux 6.1 (Debian 12, i686 686-pae
kernel, booted with nr_cpus=1 psi=1) would show it: one Xeon CPU, em0/em1 on an
Intel 82546GB dual port (8086:1079 rev 03) on PCI-X 133 MHz/64-bit behind an
82870P2 P64H2 bridge, em2 an 82540EM (8086:100e) and fxp0 an 82559 (8086:1229)
on the ICH3's 33 MHz/32-bit PCI bus. A UDP echo of 1024-byte payloads runs on
em0: 550 Mbit/s applied, 549.0 Mbit/s echoed, CPU 81 % busy.

Every number is derived below from a handful of inputs, so the tree is
self-consistent (packets = rate x time, IP counters = sum over interfaces,
intr = sum of IRQs, ...). The values are hand-chosen, nothing is random.
Standard library only, plus scripts/fixture_lib.py next to this file.

Usage: python3 scripts/gen-seed-box.py tests/fixtures/seed-box
"""

import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fixture_lib import (ST_66, ST_CAP, ST_DEVSEL_MED, ST_FB2B, IrqTable, bridge_bus_numbers,
                         bridge_windows, ethtool_text, header, keep_empty_dirs, msi_cap,
                         output_root, pci_attrs, pm_cap, proc_net_netstat, proc_net_snmp,
                         softnet_stat, task_stat, udp_counters, write, write_netdev,
                         write_pci_function, write_procfs)

# ---------------------------------------------------------------- timeline --
USER_HZ = 100
IDLE_S = 600          # boot, then idle (ssh login, setup)
BENCH_S = 1200        # UDP echo at steady state until the snapshot
UPTIME_S = IDLE_S + BENCH_S
BTIME = 1098328981    # 2004-10-21 03:23:01 UTC, the date of the second mail

# ------------------------------------------------------------ UDP echo ------
PAYLOAD = 1024                    # UDP payload bytes
IP_LEN = PAYLOAD + 8 + 20         # 1052: UDP + IPv4 headers
FRAME = IP_LEN + 14               # 1066: Ethernet frame without FCS (Linux counts)
WIRE = FRAME + 4                  # 1070: with FCS (what e1000's GORC/GOTC count)
APPLIED_BPS = 550.0e6             # payload bit/s offered (seed table, 550 row)
ECHOED_BPS = 549.0e6              # payload bit/s echoed back
RX_PPS = APPLIED_BPS / (8 * PAYLOAD)   # 67138.67
TX_PPS = ECHOED_BPS / (8 * PAYLOAD)    # 67016.60
UDP_RX = round(RX_PPS * BENCH_S)       # 80566406 datagrams reached the socket
UDP_TX = round(TX_PPS * BENCH_S)       # 80419922 echoed
RCVBUF_ERRORS = UDP_RX - UDP_TX        # 146484: all loss is at the socket rung

# ----------------------------------------------------------- CPU ticks ------
# idle phase (60000 ticks) and bench phase (120000 ticks); bench is 81.03 % busy.
IDLE_T = dict(user=420, nice=0, system=510, idle=58870, iowait=160, irq=12, softirq=28)
BENCH_T = dict(user=12031, nice=0, system=45588, idle=22766, iowait=0, irq=3594,
               softirq=36021)
assert sum(IDLE_T.values()) == IDLE_S * USER_HZ
assert sum(BENCH_T.values()) == BENCH_S * USER_HZ
CPU = {k: IDLE_T[k] + BENCH_T[k] for k in IDLE_T}

# udpecho: started 1.26 s before the load, one thread, on cpu0.
UDPECHO_PID = 812
UDPECHO_UTIME = 11986     # of the bench phase's 12031 user ticks
UDPECHO_STIME = 45412     # of the bench phase's 45588 system ticks
UDPECHO_START = 59874     # starttime, ticks after boot

# --------------------------------------------------------- interrupts -------
EM0_IRQS_PER_S = 7952     # e1000 dynamic ITR at ~67 kpps rx + 67 kpps tx cleanup
IRQ = {                   # Linux IRQ -> (count, chip, hwirq, flow, action)
    0: (19, "IO-APIC", 2, "edge", "timer"),
    1: (9, "IO-APIC", 1, "edge", "i8042"),
    8: (1, "IO-APIC", 8, "edge", "rtc0"),
    9: (0, "IO-APIC", 9, "fasteoi", "acpi"),
    12: (4, "IO-APIC", 12, "edge", "i8042"),
    14: (21511, "IO-APIC", 14, "edge", "ata_piix"),
    15: (0, "IO-APIC", 15, "edge", "ata_piix"),
    18: (417, "IO-APIC", 18, "fasteoi", "em2"),
    19: (14806, "IO-APIC", 19, "fasteoi", "fxp0"),
    # P64H2 segment A IOxAPIC, GSI base 24: em0 INTA# on pin 0, em1 INTB# on pin 1.
    24: (EM0_IRQS_PER_S * BENCH_S + 1311, "IO-APIC", 0, "fasteoi", "em0"),
    25: (431, "IO-APIC", 1, "fasteoi", "em1"),
}
NR_IRQS = 256
# Named /proc/interrupts lines (one count each, CPU0) that are not 0.
NAMED = {"LOC": [24000 - 13 + 250 * BENCH_S],  # NO_HZ idle, HZ=250 busy
         "IWI": [2], "MCP": [6]}

# ------------------------------------------------------- other traffic ------
# em0 besides the echo: ARP with the load generators.
EM0_ARP_RX, EM0_ARP_RX_BCAST = 1874, 1511
EM0_ARP_TX, EM0_ARP_TX_BCAST = 1203, 23
EM1_ARP_RX, EM1_ARP_TX = 412, 3     # idle ports: broadcast ARP of the segment
EM2_ARP_RX, EM2_ARP_TX = 397, 3
# fxp0 is the management port (ssh, DNS, NTP).
FXP_TCP_RX, FXP_TCP_RX_IPLEN = 9712, 66
FXP_TCP_TX, FXP_TCP_TX_IPLEN = 11249, 190
FXP_UDP_RX, FXP_UDP_RX_IPLEN = 72, 76   # 37 delivered + 12 no port + 23 broadcast ignored
FXP_UDP_RX_DELIVERED, UDP_NOPORTS, UDP_IGNORED_MULTI = 37, 12, 23
FXP_UDP_TX, FXP_UDP_TX_IPLEN = 41, 62
FXP_ICMP_TX, FXP_ICMP_TX_IPLEN = 12, 104  # port unreachables for the 12 NoPorts
FXP_ARP_RX, FXP_ARP_TX = 58, 51
LO_PKTS, LO_IPLEN = 214, 67              # local TCP
TCP_RETRANS = 4
TIME_SQUEEZE = 2914
TX_RESTART_QUEUE = 1287


def rx_frame(iplen):
    return max(iplen + 14, 60)  # received frames are padded to 60


# --------------------------------------------------------------- /proc ------
def irq_table():
    t = IrqTable(1, NR_IRQS)
    for irq in sorted(IRQ):
        count, chip, hwirq, flow, action = IRQ[irq]
        t.add(chip, hwirq, flow, [action], num=irq).counts[0] = count
    return t


def softirqs():
    nic_irqs = sum(IRQ[i][0] for i in (18, 19, 24, 25))
    return [("HI", [0]), ("TIMER", [71922]), ("NET_TX", [TX_RESTART_QUEUE + 4]),
            ("NET_RX", [nic_irqs + LO_PKTS + TIME_SQUEEZE]), ("BLOCK", [IRQ[14][0]]),
            ("IRQ_POLL", [0]), ("TASKLET", [37]), ("SCHED", [64305]), ("HRTIMER", [0]),
            ("RCU", [58226])]


def processed_packets():
    return (UDP_RX + EM0_ARP_RX + EM1_ARP_RX + EM2_ARP_RX + FXP_TCP_RX + FXP_UDP_RX
            + FXP_ARP_RX + LO_PKTS)


def ip_totals():
    in_recv = UDP_RX + FXP_TCP_RX + FXP_UDP_RX + LO_PKTS
    out_req = UDP_TX + FXP_TCP_TX + FXP_UDP_TX + FXP_ICMP_TX + LO_PKTS
    in_oct = (UDP_RX * IP_LEN + FXP_TCP_RX * FXP_TCP_RX_IPLEN + FXP_UDP_RX * FXP_UDP_RX_IPLEN
              + LO_PKTS * LO_IPLEN)
    out_oct = (UDP_TX * IP_LEN + FXP_TCP_TX * FXP_TCP_TX_IPLEN
               + FXP_UDP_TX * FXP_UDP_TX_IPLEN + FXP_ICMP_TX * FXP_ICMP_TX_IPLEN
               + LO_PKTS * LO_IPLEN)
    return in_recv, out_req, in_oct, out_oct


def proc_snmp():
    in_recv, out_req, _, _ = ip_totals()
    udp_in = UDP_TX + FXP_UDP_RX_DELIVERED  # InDatagrams counts datagrams read by apps
    return proc_net_snmp(
        "6.1", ip=dict(Forwarding=2, InReceives=in_recv, InDelivers=in_recv,
                       OutRequests=out_req),
        icmp=dict(OutMsgs=FXP_ICMP_TX, OutDestUnreachs=FXP_ICMP_TX),
        icmpmsg=dict(OutType3=FXP_ICMP_TX),
        tcp=dict(ActiveOpens=14, PassiveOpens=9, EstabResets=2, CurrEstab=1,
                 InSegs=FXP_TCP_RX + LO_PKTS, OutSegs=FXP_TCP_TX + LO_PKTS - TCP_RETRANS,
                 RetransSegs=TCP_RETRANS, OutRsts=6),
        udp=udp_counters(udp_in, UDP_TX + FXP_UDP_TX, UDP_NOPORTS, RCVBUF_ERRORS,
                         UDP_IGNORED_MULTI))


TCPEXT_VALUES = {"TW": 3, "DelayedACKs": 212, "TCPHPHits": 3802, "TCPPureAcks": 4011,
                 "TCPHPAcks": 2977, "TCPTimeouts": 2, "TCPLossProbes": 2,
                 "TCPRcvCoalesce": 33, "TCPAbortOnClose": 1, "TCPAutoCorking": 17,
                 "TCPOrigDataSent": 8121, "TCPDelivered": 8125}


def proc_netstat():
    in_recv, _, in_oct, out_oct = ip_totals()
    return proc_net_netstat("6.1", TCPEXT_VALUES, dict(
        InBcastPkts=UDP_IGNORED_MULTI, InOctets=in_oct, OutOctets=out_oct,
        InBcastOctets=UDP_IGNORED_MULTI * FXP_UDP_RX_IPLEN, InNoECTPkts=in_recv))


def udpecho_stat():
    # Run in the foreground of the login shell (pid 790, session leader) on pts/0;
    # Linux 6.1 i686: rsslim is 2^32-1 on 32-bit.
    return task_stat(UDPECHO_PID, "udpecho", "R", ppid=790, pgrp=UDPECHO_PID, session=790,
                     tty_nr=34816, tpgid=UDPECHO_PID, flags=0x400000, minflt=143,
                     utime=UDPECHO_UTIME, stime=UDPECHO_STIME, starttime=UDPECHO_START,
                     vsize=2469888, rss=226, rsslim=2 ** 32 - 1, code=(134512640, 134519576),
                     stack=3220172208, data=(134524684, 134525192), brk=140218368,
                     args=(3220174419, 3220174437), env=(3220174437, 3220176876))


# ------------------------------------------------------------ net stats -----
def netdev_counters():
    """Per interface: (sysfs statistics dict, hardware extras dict)."""
    c = {}
    # em0: software counts exclude the FCS; e1000 pads short tx frames to 60 bytes.
    c["em0"] = dict(rx_packets=UDP_RX + EM0_ARP_RX, tx_packets=UDP_TX + EM0_ARP_TX,
                    rx_bytes=UDP_RX * FRAME + EM0_ARP_RX * 60,
                    tx_bytes=UDP_TX * FRAME + EM0_ARP_TX * 60,
                    hw_rx_bytes=UDP_RX * WIRE + EM0_ARP_RX * 64,
                    hw_tx_bytes=UDP_TX * WIRE + EM0_ARP_TX * 64,
                    rx_bcast=EM0_ARP_RX_BCAST, tx_bcast=EM0_ARP_TX_BCAST, csum_good=UDP_RX,
                    restart=TX_RESTART_QUEUE)
    for name, rx, tx in (("em1", EM1_ARP_RX, EM1_ARP_TX), ("em2", EM2_ARP_RX, EM2_ARP_TX)):
        c[name] = dict(rx_packets=rx, tx_packets=tx, rx_bytes=rx * 60, tx_bytes=tx * 60,
                       hw_rx_bytes=rx * 64, hw_tx_bytes=tx * 64, rx_bcast=rx, tx_bcast=tx,
                       csum_good=0, restart=0)
    fxp_rx = FXP_TCP_RX + FXP_UDP_RX + FXP_ARP_RX
    fxp_tx = FXP_TCP_TX + FXP_UDP_TX + FXP_ICMP_TX + FXP_ARP_TX
    fxp_rx_bytes = (FXP_TCP_RX * rx_frame(FXP_TCP_RX_IPLEN)
                    + FXP_UDP_RX * rx_frame(FXP_UDP_RX_IPLEN) + FXP_ARP_RX * 60)
    fxp_tx_bytes = (FXP_TCP_TX * (FXP_TCP_TX_IPLEN + 14) + FXP_UDP_TX * (FXP_UDP_TX_IPLEN + 14)
                    + FXP_ICMP_TX * (FXP_ICMP_TX_IPLEN + 14) + FXP_ARP_TX * 42)
    c["fxp0"] = dict(rx_packets=fxp_rx, tx_packets=fxp_tx, rx_bytes=fxp_rx_bytes,
                     tx_bytes=fxp_tx_bytes)
    c["lo"] = dict(rx_packets=LO_PKTS, tx_packets=LO_PKTS, rx_bytes=LO_PKTS * (LO_IPLEN + 14),
                   tx_bytes=LO_PKTS * (LO_IPLEN + 14))
    return c


E1000_STATS = [  # drivers/net/ethernet/intel/e1000/e1000_ethtool.c, in order
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_broadcast", "tx_broadcast",
    "rx_multicast", "tx_multicast", "rx_errors", "tx_errors", "tx_dropped", "multicast",
    "collisions", "rx_length_errors", "rx_over_errors", "rx_crc_errors", "rx_frame_errors",
    "rx_no_buffer_count", "rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors",
    "tx_fifo_errors", "tx_heartbeat_errors", "tx_window_errors", "tx_abort_late_coll",
    "tx_deferred_ok", "tx_single_coll_ok", "tx_multi_coll_ok", "tx_timeout_count",
    "tx_restart_queue", "rx_long_length_errors", "rx_short_length_errors",
    "rx_align_errors", "tx_tcp_seg_good", "tx_tcp_seg_failed", "rx_flow_control_xon",
    "rx_flow_control_xoff", "tx_flow_control_xon", "tx_flow_control_xoff",
    "rx_long_byte_count", "rx_csum_offload_good", "rx_csum_offload_errors",
    "alloc_rx_buff_failed", "tx_smbus", "rx_smbus", "dropped_smbus"]

E100_STATS = [  # drivers/net/ethernet/intel/e100.c e100_gstrings_stats, in order
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
    "rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors",
    "rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors",
    "rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_window_errors", "tx_deferred", "tx_single_collisions",
    "tx_multi_collisions", "tx_flow_control_pause", "rx_flow_control_pause",
    "rx_flow_control_unsupported", "tx_tco_packets", "rx_tco_packets",
    "rx_short_frame_errors", "rx_over_length_errors"]


def e1000_ethtool(c):
    # Hardware counters (GPRC/GPTC/GORC/GOTC) count what the MAC saw, FCS included.
    v = dict(rx_packets=c["rx_packets"], tx_packets=c["tx_packets"],
             rx_bytes=c["hw_rx_bytes"], tx_bytes=c["hw_tx_bytes"],
             rx_broadcast=c["rx_bcast"], tx_broadcast=c["tx_bcast"],
             tx_restart_queue=c["restart"], rx_long_byte_count=c["hw_rx_bytes"],
             rx_csum_offload_good=c["csum_good"])
    return ethtool_text([(n, v.get(n, 0)) for n in E1000_STATS])


# ------------------------------------------------------ PCI config space ----
def type0(c, bars, ssvid, ssid, cap, irq, pin, min_gnt, max_lat):
    for i, v in enumerate(bars):
        c.u32(0x10 + 4 * i, v)
    c.u16(0x2c, ssvid)
    c.u16(0x2e, ssid)
    c.u8(0x34, cap)
    c.u8(0x3c, irq & 0xff)
    c.u8(0x3d, pin)
    c.u8(0x3e, min_gnt)
    c.u8(0x3f, max_lat)


def type1(c, pri, sec, sub, sec_lat, io, mem, sec_status, cap, bctl):
    bridge_bus_numbers(c, pri, sec, sub, sec_lat)
    # 16-bit I/O decode, 32-bit prefetchable window disabled.
    bridge_windows(c, mem=mem, io=io, pref_64bit=False)
    c.u16(0x1e, sec_status)
    c.u8(0x34, cap)
    c.u16(0x3e, bctl)


def pcix_cap(c, off, nxt, command, status):
    c.u8(off, 0x07)
    c.u8(off + 1, nxt)
    c.u16(off + 2, command)
    c.u32(off + 4, status)


def pcix_bridge_cap(c, off, nxt, sec_status, bridge_status, up_split, down_split):
    c.u8(off, 0x07)
    c.u8(off + 1, nxt)
    c.u16(off + 2, sec_status)
    c.u32(off + 4, bridge_status)
    c.u32(off + 8, up_split)
    c.u32(off + 12, down_split)


def pcix_devfn_bus(bus, dev, fn):
    return (bus << 8) | (dev << 3) | fn


PCIX_64BIT, PCIX_133 = 1 << 16, 1 << 17


def e1000_82546(bus, dev, fn, mem, io, irq):
    # Status: Cap list, 66 MHz capable (required of PCI-X devices), DEVSEL medium.
    c = header(0x8086, 0x1079, 0x0117, ST_CAP | ST_66 | ST_DEVSEL_MED, 0x03, 0x020000,
               0x80, cache_line=0x10, latency=0x40)  # multi-function: two ports
    # BAR0/1: 64-bit memory 128 KiB; BAR2/3: flash (absent); BAR4: I/O 64 bytes.
    type0(c, [mem | 0x4, 0, 0, 0, io | 0x1, 0], 0x8086, 0x1179, 0xdc, irq, 1 + fn,
          0xff, 0x00)
    pm_cap(c, 0xdc, 0xe4, 0xc822, 0x2000)  # PME D0/D3hot/D3cold, DSI, version 2
    # PCI-X: command = relaxed ordering enabled (reset default), MMRBC 512;
    # status = captured bus/dev/fn, 64-bit device, 133 MHz capable, designed max
    # read byte count 2 KiB, 4 outstanding splits, cumulative read size 3.
    pcix_cap(c, 0xe4, 0xf0, 0x0002,
             pcix_devfn_bus(bus, dev, fn) | PCIX_64BIT | PCIX_133
             | (2 << 21) | (3 << 23) | (3 << 26))
    msi_cap(c, 0xf0, 0x00, False)  # present on 82546GB, left disabled by e1000
    return c


def e1000_82540(mem, io, irq):
    c = header(0x8086, 0x100e, 0x0117, ST_CAP | ST_66 | ST_DEVSEL_MED, 0x02, 0x020000,
               0x00, cache_line=0x10, latency=0x40)
    # BAR0: 32-bit memory 128 KiB; BAR1: flash (absent); BAR2: I/O 64 bytes.
    type0(c, [mem, 0, io | 0x1, 0, 0, 0], 0x8086, 0x001e, 0xdc, irq, 1, 0xff, 0x00)
    pm_cap(c, 0xdc, 0x00, 0xc822, 0x2000)  # 82540EP/EM: no PCI-X capability
    return c


def e100_82559(mem, io, flash, irq):
    c = header(0x8086, 0x1229, 0x0117, ST_CAP | ST_FB2B | ST_DEVSEL_MED, 0x08, 0x020000,
               0x00, cache_line=0x10, latency=0x40)
    # BAR0: CSR memory 4 KiB, BAR1: CSR I/O 64 bytes, BAR2: flash 1 MiB.
    type0(c, [mem, io | 0x1, flash, 0, 0, 0], 0x8086, 0x000c, 0xdc, irq, 1, 0x08, 0x18)
    pm_cap(c, 0xdc, 0x00, 0xfe22, 0x0000)  # PME from D0..D3cold, D1, D2, DSI, version 2
    return c


def host_bridge():
    return header(0x8086, 0x254c, 0x0006, 0x0000, 0x01, 0x060000, 0x80, cache_line=0x00)


def bridge(vendor, device, rev, class_code, lat, pri, sec, sub, io, mem, status,
           sec_status, cap=0x00):
    c = header(vendor, device, 0x0147, status, rev, class_code, 0x01, latency=lat)
    type1(c, pri, sec, sub, 0x40, io, mem, sec_status, cap, 0x0003)
    return c


def pci_devices():
    """(address, sysfs dir under devices/, config, sysfs attrs, driver or None)."""
    devs = []

    def add(addr, path, cfg, irq, driver):
        b = cfg.b
        # A type 0 header holds the subsystem IDs at 0x2c; these bridges have none.
        subsystem = struct.unpack_from("<HH", b, 0x2c) if b[0x0e] & 0x7f == 0 else (0, 0)
        devs.append((addr, path, cfg, pci_attrs(cfg, irq, -1, subsystem), driver))

    root = "pci0000:00"
    hi_b = root + "/0000:00:02.0"
    p64h2 = hi_b + "/0000:01:1d.0"
    ich = root + "/0000:00:1e.0"
    add("0000:00:00.0", root + "/0000:00:00.0", host_bridge(), 0, None)
    # E7501 hub interface B bridge: bus 1 (the P64H2) .. bus 2.
    add("0000:00:02.0", hi_b,
        bridge(0x8086, 0x2543, 0x01, 0x060400, 0x00, 0, 1, 2, (0xb000, 0xbfff),
               (0xfca00000, 0xfcafffff), 0x0000, 0x0280), 0, None)
    # 82870P2 P64H2 segment A bridge: secondary bus 2 in PCI-X mode 1, 133 MHz, 64-bit.
    br = bridge(0x8086, 0x1460, 0x04, 0x060400, 0x40, 1, 2, 2, (0xb000, 0xbfff),
                (0xfca00000, 0xfcafffff), ST_CAP | ST_66 | ST_DEVSEL_MED,
                ST_66 | ST_FB2B | ST_DEVSEL_MED, cap=0x50)
    pcix_bridge_cap(br, 0x50, 0x00,
                    0x0001 | 0x0002 | (3 << 6),  # 64-bit, 133 capable, mode 1 133 MHz
                    pcix_devfn_bus(1, 0x1d, 0) | PCIX_64BIT | PCIX_133,
                    0x00200020, 0x00200020)
    add("0000:01:1d.0", p64h2, br, 0, None)
    add("0000:02:01.0", p64h2 + "/0000:02:01.0",
        e1000_82546(2, 1, 0, 0xfcae0000, 0xb000, 24), 24, "e1000")
    add("0000:02:01.1", p64h2 + "/0000:02:01.1",
        e1000_82546(2, 1, 1, 0xfcac0000, 0xb040, 25), 25, "e1000")
    # ICH3-S hub-to-PCI bridge (subtractive decode): bus 3, conventional PCI 33 MHz
    # (secondary status without 66 MHz capable), 32-bit.
    add("0000:00:1e.0", ich,
        bridge(0x8086, 0x244e, 0x42, 0x060401, 0x00, 0, 3, 3, (0xc000, 0xcfff),
               (0xfc700000, 0xfc9fffff), ST_FB2B, ST_FB2B | ST_DEVSEL_MED), 0, None)
    add("0000:03:01.0", ich + "/0000:03:01.0", e1000_82540(0xfc9e0000, 0xc000, 18), 18,
        "e1000")
    add("0000:03:02.0", ich + "/0000:03:02.0",
        e100_82559(0xfc9df000, 0xc040, 0xfc800000, 19), 19, "e100")
    return devs


NETDEVS = [  # name, ifindex, PCI address or None
    ("lo", 1, None), ("em0", 2, "0000:02:01.0"), ("em1", 3, "0000:02:01.1"),
    ("em2", 4, "0000:03:01.0"), ("fxp0", 5, "0000:03:02.0")]


def write_sys(root):
    paths = {}
    for addr, path, cfg, attrs, driver in pci_devices():
        paths[addr] = path
        write_pci_function(root, addr, path, cfg, attrs, driver)
    counters = netdev_counters()  # statistics/*: the rx/tx packet and byte counts
    for name, ifindex, addr in NETDEVS:
        write_netdev(root, name, ifindex, dict(operstate="unknown" if name == "lo" else "up"),
                     counters[name], pci=(addr, paths[addr]) if addr else None)


def main():
    root = output_root()
    write_procfs(root, irq_table(), NAMED, [CPU], softirqs(),
                 softnet_stat([processed_packets()], [TIME_SQUEEZE]), proc_snmp(),
                 proc_netstat(), pressure=(12.31, 11.87, 9.42, 128409117),
                 ctxt=108000 + 9120 * BENCH_S - 123, btime=BTIME, processes=1412,
                 procs_running=2)
    write(root, "proc/%d/comm" % UDPECHO_PID, "udpecho\n")
    write(root, "proc/%d/task/%d/stat" % (UDPECHO_PID, UDPECHO_PID), udpecho_stat())
    write_sys(root)
    counters = netdev_counters()
    for name in ("em0", "em1", "em2"):
        write(root, "ethtool/" + name, e1000_ethtool(counters[name]))
    fxp = counters["fxp0"]
    write(root, "ethtool/fxp0", ethtool_text([(n, fxp.get(n, 0)) for n in E100_STATS]))
    keep_empty_dirs(root)
    # Summary for the README.
    in_recv, out_req, in_oct, out_oct = ip_totals()
    print("udp rx %d tx %d rcvbuf %d" % (UDP_RX, UDP_TX, RCVBUF_ERRORS))
    print("cpu", CPU)
    print("em0 irqs", IRQ[24][0], "processed", processed_packets(),
          "ip in/out", in_recv, out_req, in_oct, out_oct)
    for n, c in counters.items():
        print(n, c)


if __name__ == "__main__":
    main()
