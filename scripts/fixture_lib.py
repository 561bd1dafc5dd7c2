"""Shared helpers of the fixture generators (gen-seed-box.py, gen-large-host.py,
gen-pcie-box.py):
file and symlink writing, kernel text formats, and PCI configuration space.
Standard library only."""

import os
import struct

# Files under /sys/class/net/IF/statistics on Linux >= 4.6, in `ls` order.
STAT_FILES = ["collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors",
              "rx_dropped", "rx_errors", "rx_fifo_errors", "rx_frame_errors",
              "rx_length_errors", "rx_missed_errors", "rx_nohandler", "rx_over_errors",
              "rx_packets", "tx_aborted_errors", "tx_bytes", "tx_carrier_errors",
              "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
              "tx_heartbeat_errors", "tx_packets", "tx_window_errors"]


# ------------------------------------------------------------------ files ---
def write(root, rel, data):
    """Writes text (str) or binary (bytes) data to root/rel, creating directories."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, (bytes, bytearray)) else "w") as f:
        f.write(data)


def symlink(root, rel, target):
    """Creates root/rel -> target (relative, as sysfs stores it) and the target dir."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)
    os.makedirs(os.path.normpath(os.path.join(os.path.dirname(path), target)), exist_ok=True)


def keep_empty_dirs(root):
    """Git drops empty directories; marks symlink-target-only ones (bus/pci/drivers/X)."""
    for dirpath, dirnames, filenames in os.walk(root):
        if not dirnames and not filenames:
            open(os.path.join(dirpath, ".keep"), "w").close()


# ----------------------------------------------------------- text formats ---
def ethtool_text(pairs):
    """`ethtool -S` output for (name, value) pairs."""
    return "NIC statistics:\n" + "".join("     %s: %d\n" % (n, v) for n, v in pairs)


def snmp_table(name, fields, values):
    """A header/value line pair of /proc/net/snmp or /proc/net/netstat; fields
    missing from `values` are 0."""
    return "%s: %s\n%s: %s\n" % (name, " ".join(fields), name,
                                 " ".join(str(values.get(f, 0)) for f in fields))


# ---------------------------------------------------------- PCI config space -
class Config:
    """A PCI configuration space image (little-endian registers)."""

    def __init__(self, size=256):
        self.b = bytearray(size)

    def u8(self, off, v):
        self.b[off] = v

    def u16(self, off, v):
        struct.pack_into("<H", self.b, off, v)

    def u32(self, off, v):
        struct.pack_into("<I", self.b, off, v)


# Status register bits.
ST_CAP = 0x0010        # capabilities list
ST_66 = 0x0020         # 66 MHz capable
ST_FB2B = 0x0080       # fast back-to-back capable
ST_DEVSEL_MED = 0x0200


def header(vendor, device, command, status, rev, class_code, htype, size=256,
           cache_line=0x10, latency=0x00):
    """Common header (offsets 0x00-0x0f); class_code is base<<16 | sub<<8 | prog-if."""
    c = Config(size)
    c.u16(0x00, vendor)
    c.u16(0x02, device)
    c.u16(0x04, command)
    c.u16(0x06, status)
    c.u8(0x08, rev)
    c.u8(0x09, class_code & 0xff)
    c.u8(0x0a, (class_code >> 8) & 0xff)
    c.u8(0x0b, class_code >> 16)
    c.u8(0x0c, cache_line)  # in dwords: 0x10 = 64 bytes
    c.u8(0x0d, latency)
    c.u8(0x0e, htype)
    return c


def pm_cap(c, off, nxt, pmc, pmcsr):
    """Power management capability (ID 01h)."""
    c.u8(off, 0x01)
    c.u8(off + 1, nxt)
    c.u16(off + 2, pmc)
    c.u16(off + 4, pmcsr)


def msi_cap(c, off, nxt, enabled, mmc=0, maskable=False):
    """64-bit MSI capability (ID 05h); mmc = log2(vectors requested)."""
    c.u8(off, 0x05)
    c.u8(off + 1, nxt)
    c.u16(off + 2, (1 if enabled else 0) | (mmc << 1) | 0x0080 | (0x0100 if maskable else 0))
    if enabled:
        c.u32(off + 4, 0xfee00000)


# ====================================================================
# Added for gen-pcie-box.py (PCIe capability v2, MSI-X, extended
# capabilities incl. AER, sysfs AER text, 6.1 procfs field lists, lspci
# dumps). Nothing above this line depends on it.
# ====================================================================

# PCIe link speed codes (Link Capabilities / Status, Link Capabilities 2 bit n).
PCIE_SPEED_CODE = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5}
PCIE_SIZE_CODE = {128: 0, 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}  # MPS / MRRS


def pcie_speed_attr(gts):
    """sysfs current_link_speed / max_link_speed text (Linux >= 5.x): "8.0 GT/s PCIe"."""
    return "%.1f GT/s PCIe" % gts


def pcie_speed_vector(max_gts):
    """Link Capabilities 2 supported-speeds vector (bits 1..7) up to max_gts."""
    return sum(1 << code for gts, code in PCIE_SPEED_CODE.items() if gts <= max_gts)


def msix_capability(c, off, nxt, table_size, table_bir=0, table_off=0x2000, pba_bir=0,
                    pba_off=0x3000, enabled=True):
    """MSI-X capability (ID 11h): Message Control (table size - 1, enable), table and PBA
    offset/BIR registers."""
    c.u8(off, 0x11)
    c.u8(off + 1, nxt)
    c.u16(off + 2, (0x8000 if enabled else 0) | (table_size - 1))
    c.u32(off + 4, table_off | table_bir)
    c.u32(off + 8, pba_off | pba_bir)


def ssvid_capability(c, off, nxt, ssvid, ssid):
    """Bridge subsystem vendor ID capability (ID 0Dh)."""
    c.u8(off, 0x0d)
    c.u8(off + 1, nxt)
    c.u16(off + 4, ssvid)
    c.u16(off + 6, ssid)


def bridge_bus_numbers(c, primary, secondary, subordinate, sec_latency=0):
    """Type 1 header bus number registers (0x18-0x1b)."""
    c.u8(0x18, primary)
    c.u8(0x19, secondary)
    c.u8(0x1a, subordinate)
    c.u8(0x1b, sec_latency)


def bridge_windows(c, mem=None, pref=None, io=None):
    """Type 1 forwarding windows as (base, limit) byte addresses; None disables one
    (base above limit). pref is a 64-bit prefetchable window."""
    if io:
        c.u8(0x1c, (io[0] >> 8) & 0xf0)
        c.u8(0x1d, (io[1] >> 8) & 0xf0)
    else:
        c.u8(0x1c, 0xf0)
        c.u8(0x1d, 0x00)
    if mem:
        c.u16(0x20, (mem[0] >> 16) & 0xfff0)
        c.u16(0x22, (mem[1] >> 16) & 0xfff0)
    else:
        c.u16(0x20, 0xfff0)
        c.u16(0x22, 0x0000)
    if pref:
        c.u16(0x24, ((pref[0] >> 16) & 0xfff0) | 1)
        c.u16(0x26, ((pref[1] >> 16) & 0xfff0) | 1)
        c.u32(0x28, pref[0] >> 32)
        c.u32(0x2c, pref[1] >> 32)
    else:
        c.u16(0x24, 0xfff1)
        c.u16(0x26, 0x0001)


# PCI Express Capabilities register device/port types.
PCIE_ENDPOINT, PCIE_ROOT_PORT, PCIE_UPSTREAM, PCIE_DOWNSTREAM = 0, 4, 5, 6


def pcie_capability(c, off, nxt, port_type, mps_supported, mps, mrrs, max_speed, max_width,
                    speed, width, port_no=0, aspm=0, l0s_exit=7, l1_exit=7,
                    l0s_accept=7, l1_accept=7, dll_active=False, flr=False,
                    slot=None, devcap2=0x0000001f, devctl2=0, lnksta2=0x001e,
                    relaxed_ordering=True, no_snoop=True, int_msg=0):
    """PCI Express capability (ID 10h), version 2, 0x3c bytes, as pci_regs.h lays it out.

    port_type: PCIE_ENDPOINT/ROOT_PORT/UPSTREAM/DOWNSTREAM. mps_supported, mps, mrrs in
    bytes (Device Capabilities / Device Control). max_speed/max_width go to Link
    Capabilities (speed as the index into the Link Capabilities 2 vector, which lists
    every speed up to max_speed), speed/width to Link Status. aspm: Link Capabilities
    ASPM support field (0 none, 1 L0s, 2 L1, 3 both). Ports get Data Link Layer Link
    Active Reporting and Bandwidth Notification capable; dll_active sets DLActive in
    Link Status. slot = (physical slot number, power limit in watts) for a port with
    a slot (Slot Implemented, Slot Capabilities, presence detected). Device Control
    enables correctable/non-fatal/fatal/UR reporting (as Linux's AER driver leaves
    it), extended tags, and relaxed ordering / no snoop when asked."""
    is_port = port_type in (PCIE_ROOT_PORT, PCIE_DOWNSTREAM)
    c.u8(off, 0x10)
    c.u8(off + 1, nxt)
    c.u16(off + 2, 0x0002 | (port_type << 4) | (0x0100 if slot else 0) | (int_msg << 9))
    devcap = PCIE_SIZE_CODE[mps_supported] | (1 << 5) | (1 << 15)
    if port_type == PCIE_ENDPOINT:
        devcap |= (l0s_accept << 6) | (l1_accept << 9) | ((1 << 28) if flr else 0)
    c.u32(off + 4, devcap)
    devctl = (0x000f | (0x0010 if relaxed_ordering else 0) | (PCIE_SIZE_CODE[mps] << 5)
              | 0x0100 | (0x0800 if no_snoop else 0) | (PCIE_SIZE_CODE[mrrs] << 12))
    c.u16(off + 8, devctl)
    c.u16(off + 0x0a, 0)  # Device Status: nothing pending (Linux clears after AER)
    lnkcap = (PCIE_SPEED_CODE[max_speed] | (max_width << 4) | (aspm << 10) | (l0s_exit << 12)
              | (l1_exit << 15) | (1 << 22) | (port_no << 24))
    if is_port:
        lnkcap |= (1 << 20) | (1 << 21)  # DLL Link Active Reporting, BW notification
    c.u32(off + 0x0c, lnkcap)
    c.u16(off + 0x10, 0x0040)  # Link Control: ASPM disabled, common clock
    c.u16(off + 0x12, PCIE_SPEED_CODE[speed] | (width << 4) | (1 << 12)
          | ((1 << 13) if dll_active else 0))
    if slot:
        number, watts = slot
        assert 0 < watts <= 255  # Slot Power Limit Value with scale 0 (1.0x)
        c.u32(off + 0x14, (watts << 7) | (1 << 18) | (number << 19))  # No Command Completed
        c.u16(off + 0x1a, 0x0040)  # Slot Status: presence detected
    if port_type == PCIE_ROOT_PORT:
        c.u16(off + 0x1c, 0x0008)  # Root Control: PME interrupt enable
    c.u32(off + 0x24, devcap2)
    c.u16(off + 0x28, devctl2)
    c.u32(off + 0x2c, pcie_speed_vector(max_speed))
    c.u16(off + 0x30, PCIE_SPEED_CODE[max_speed])  # Link Control 2: target speed
    c.u16(off + 0x32, lnksta2)


def ext_capability(c, off, cap_id, version, nxt):
    """Extended capability header (offset >= 0x100): ID, version, next pointer."""
    c.u32(off, cap_id | (version << 16) | (nxt << 20))


# AER defaults (PCIe base spec reset values): uncorrectable severity = DLP, SDES,
# FCP, RxOF, MalfTLP, UncorrIntErr fatal; correctable mask = AdvNonFatalErr.
AER_UESVRT_DEFAULT = 0x00462030
AER_CEMSK_DEFAULT = 0x00002000


def aer_capability(c, off, nxt, root_port=False, uncor_status=0, uncor_mask=0,
                   uncor_severity=AER_UESVRT_DEFAULT, cor_status=0, cor_mask=AER_CEMSK_DEFAULT,
                   ecrc_check_capable=True):
    """Advanced Error Reporting extended capability (ID 0001h, version 2): status,
    mask and severity registers, capabilities/control (ECRC generation and check
    capable, not enabled), an empty header log; root ports add Root Error
    Command (all reporting enabled), Root Error Status and Error Source ID."""
    ext_capability(c, off, 0x0001, 2, nxt)
    c.u32(off + 0x04, uncor_status)
    c.u32(off + 0x08, uncor_mask)
    c.u32(off + 0x0c, uncor_severity)
    c.u32(off + 0x10, cor_status)
    c.u32(off + 0x14, cor_mask)
    c.u32(off + 0x18, (0x20 | 0x80) if ecrc_check_capable else 0)
    if root_port:
        c.u32(off + 0x2c, 0x00000007)


def dsn_capability(c, off, nxt, serial):
    """Device Serial Number extended capability (ID 0003h): a 64-bit serial."""
    ext_capability(c, off, 0x0003, 1, nxt)
    c.u32(off + 4, serial & 0xffffffff)
    c.u32(off + 8, serial >> 32)


def ari_capability(c, off, nxt, next_function):
    """Alternative Routing-ID Interpretation extended capability (ID 000Eh)."""
    ext_capability(c, off, 0x000e, 1, nxt)
    c.u16(off + 4, next_function << 8)


def secondary_pcie_capability(c, off, nxt, lanes):
    """Secondary PCI Express extended capability (ID 0019h, 8 GT/s and up): Link
    Control 3, Lane Error Status (0), and a lane equalization control word per lane."""
    ext_capability(c, off, 0x0019, 1, nxt)
    for lane in range(lanes):
        c.u16(off + 0x0c + 2 * lane, 0x7f7f)  # transmitter presets / receiver hints


def acs_capability(c, off, nxt, cap=0x005f, ctl=0x001d):
    """Access Control Services extended capability (ID 000Dh): capability and control
    (source validation, request/completion redirect, upstream forwarding on)."""
    ext_capability(c, off, 0x000d, 1, nxt)
    c.u16(off + 4, cap)
    c.u16(off + 6, ctl)


# --------------------------------------------------------------- sysfs AER ---
# Names Linux 6.1 (drivers/pci/pcie/aer.c) prints in aer_dev_correctable: the
# correctable status bits that have a name (bits 0, 6, 7, 8, 12-15), in bit order.
AER_COR_NAMES = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr",
                 "CorrIntErr", "HeaderOF"]
# aer_dev_fatal / aer_dev_nonfatal: uncorrectable bits 0, 4, 5, 12-26 (6.1 keeps 27
# counters; names for bits 27-31 came later).
AER_UNCOR_NAMES = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt",
                   "UnxCmplt", "RxOF", "MalfTLP", "ECRC", "UnsupReq", "ACSViol",
                   "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked", "TLPBlockedErr",
                   "PoisonTLPBlocked"]


def aer_dev_text(kind, counts=None, total=None):
    """Text of aer_dev_correctable ("cor"), aer_dev_nonfatal ("nonfatal") or
    aer_dev_fatal ("fatal"): one "NAME COUNT" line per named bit, then the TOTAL_ERR_*
    line. total defaults to the sum (every error message carried one status bit;
    the kernel counts messages in TOTAL and set bits in the per-name lines)."""
    counts = counts or {}
    names = AER_COR_NAMES if kind == "cor" else AER_UNCOR_NAMES
    unknown = set(counts) - set(names)
    assert not unknown, unknown
    total_name = {"cor": "TOTAL_ERR_COR", "nonfatal": "TOTAL_ERR_NONFATAL",
                  "fatal": "TOTAL_ERR_FATAL"}[kind]
    if total is None:
        total = sum(counts.values())
    return "".join("%s %d\n" % (n, counts.get(n, 0)) for n in names) + "%s %d\n" % (
        total_name, total)


# ----------------------------------------------------------- IRQ numbering ---
def msi_hwirq(addr, index):
    """hwirq column of an x86 PCI MSI/MSI-X interrupt in Linux <= 6.1 (one global
    "IR-PCI-MSI" domain): entry index | requester ID << 11 | domain << 27."""
    domain, bus, devfn = int(addr[0:4], 16), int(addr[5:7], 16), addr[8:]
    dev, fn = int(devfn[0:2], 16), int(devfn[3], 16)
    return index | (((bus << 8) | (dev << 3) | fn) << 11) | (domain << 27)


# --------------------------------------------------------- lspci hex dump ---
def lspci_dump(addr, data, title="device"):
    """One device of an `lspci -xxxx` style hex dump, the input `lspci -F FILE`
    reads: an address line, then "off: b0 b1 ... b15" lines."""
    out = ["%s %s" % (addr, title)]
    for off in range(0, len(data), 16):
        out.append(("%02x:" if off < 0x100 else "%03x:") % off
                   + "".join(" %02x" % b for b in data[off:off + 16]))
    return "\n".join(out) + "\n\n"


# ------------------------------------------------- Linux 6.1 procfs fields ---
IP_FIELDS_6_1 = ("Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
                 "InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes "
                 "ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails "
                 "FragCreates").split()
ICMP_FIELDS_6_1 = ("InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs "
                   "InSrcQuenchs InRedirects InEchos InEchoReps InTimestamps InTimestampReps "
                   "InAddrMasks InAddrMaskReps OutMsgs OutErrors OutDestUnreachs "
                   "OutTimeExcds OutParmProbs OutSrcQuenchs OutRedirects OutEchos "
                   "OutEchoReps OutTimestamps OutTimestampReps OutAddrMasks "
                   "OutAddrMaskReps").split()
TCP_FIELDS = ("RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
              "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts "
              "InCsumErrors").split()
UDP_FIELDS = ("InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors "
              "InCsumErrors IgnoredMulti MemErrors").split()
TCPEXT_FIELDS_6_1 = (
    "SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPruned "
    "OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW TWRecycled TWKilled PAWSActive "
    "PAWSEstab DelayedACKs DelayedACKLocked DelayedACKLost ListenOverflows ListenDrops "
    "TCPHPHits TCPPureAcks TCPHPAcks TCPRenoRecovery TCPSackRecovery TCPSACKReneging "
    "TCPSACKReorder TCPRenoReorder TCPTSReorder TCPFullUndo TCPPartialUndo TCPDSACKUndo "
    "TCPLossUndo TCPLostRetransmit TCPRenoFailures TCPSackFailures TCPLossFailures "
    "TCPFastRetrans TCPSlowStartRetrans TCPTimeouts TCPLossProbes TCPLossProbeRecovery "
    "TCPRenoRecoveryFail TCPSackRecoveryFail TCPRcvCollapsed TCPBacklogCoalesce "
    "TCPDSACKOldSent TCPDSACKOfoSent TCPDSACKRecv TCPDSACKOfoRecv TCPAbortOnData "
    "TCPAbortOnClose TCPAbortOnMemory TCPAbortOnTimeout TCPAbortOnLinger TCPAbortFailed "
    "TCPMemoryPressures TCPMemoryPressuresChrono TCPSACKDiscard TCPDSACKIgnoredOld "
    "TCPDSACKIgnoredNoUndo TCPSpuriousRTOs TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure "
    "TCPSackShifted TCPSackMerged TCPSackShiftFallback TCPBacklogDrop PFMemallocDrop "
    "TCPMinTTLDrop TCPDeferAcceptDrop IPReversePathFilter TCPTimeWaitOverflow "
    "TCPReqQFullDoCookies TCPReqQFullDrop TCPRetransFail TCPRcvCoalesce TCPOFOQueue "
    "TCPOFODrop TCPOFOMerge TCPChallengeACK TCPSYNChallenge TCPFastOpenActive "
    "TCPFastOpenActiveFail TCPFastOpenPassive TCPFastOpenPassiveFail "
    "TCPFastOpenListenOverflow TCPFastOpenCookieReqd TCPFastOpenBlackhole "
    "TCPSpuriousRtxHostQueues BusyPollRxPackets TCPAutoCorking TCPFromZeroWindowAdv "
    "TCPToZeroWindowAdv TCPWantZeroWindowAdv TCPSynRetrans TCPOrigDataSent "
    "TCPHystartTrainDetect TCPHystartTrainCwnd TCPHystartDelayDetect TCPHystartDelayCwnd "
    "TCPACKSkippedSynRecv TCPACKSkippedPAWS TCPACKSkippedSeq TCPACKSkippedFinWait2 "
    "TCPACKSkippedTimeWait TCPACKSkippedChallenge TCPWinProbe TCPKeepAlive TCPMTUPFail "
    "TCPMTUPSuccess TCPDelivered TCPDeliveredCE TCPAckCompressed TCPZeroWindowDrop "
    "TCPRcvQDrop TCPWqueueTooBig TCPFastOpenPassiveAltKey TcpTimeoutRehash "
    "TcpDuplicateDataRehash TCPDSACKRecvSegs TCPDSACKIgnoredDubious TCPMigrateReqSuccess "
    "TCPMigrateReqFailure TCPPLBRehash").split()
IPEXT_FIELDS = ("InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts "
                "InOctets OutOctets InMcastOctets OutMcastOctets InBcastOctets OutBcastOctets "
                "InCsumErrors InNoECTPkts InECT1Pkts InECT0Pkts InCEPkts "
                "ReasmOverlaps").split()
