"""Shared helpers of the fixture generators (gen-seed-box.py, gen-large-host.py):
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
