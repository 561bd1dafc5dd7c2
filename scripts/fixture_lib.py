"""Shared mechanics of the fixture generators (gen-seed-box.py, gen-large-host.py,
gen-pcie-box.py): the output tree, the procfs and sysfs files in the formats Linux
prints them, and PCI configuration space. A generator holds the inputs of its
machine and derives every number from them; the layout is here.
Standard library only."""

import os
import shutil
import struct
import sys


# ------------------------------------------------------------------ files ---
def output_root():
    """OUTDIR from the command line, with its proc, sys and ethtool trees removed
    (hand-written files such as README.md stay)."""
    if len(sys.argv) != 2:
        sys.exit("usage: %s OUTDIR" % os.path.basename(sys.argv[0]))
    root = sys.argv[1]
    for sub in ("proc", "sys", "ethtool"):
        shutil.rmtree(os.path.join(root, sub), ignore_errors=True)
    return root


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


# ------------------------------------------------------------------ sysfs ---
# Files under /sys/class/net/IF/statistics on Linux >= 4.6, in `ls` order.
STAT_FILES = ["collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors",
              "rx_dropped", "rx_errors", "rx_fifo_errors", "rx_frame_errors",
              "rx_length_errors", "rx_missed_errors", "rx_nohandler", "rx_over_errors",
              "rx_packets", "tx_aborted_errors", "tx_bytes", "tx_carrier_errors",
              "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
              "tx_heartbeat_errors", "tx_packets", "tx_window_errors"]


def pci_attrs(cfg, irq, numa_node, subsystem, link=None, revision=False, **extra):
    """sysfs attributes of a PCI function: vendor, device and class as its config
    space holds them (and revision if asked), subsystem = (vendor, device), irq,
    numa_node; link = (max GT/s, max width, current GT/s, current width) adds the
    PCIe link attributes; extra attributes (strings) as given."""
    b = cfg.b
    attrs = {"vendor": "0x%04x" % (b[0] | b[1] << 8), "device": "0x%04x" % (b[2] | b[3] << 8),
             "class": "0x%06x" % (b[9] | b[10] << 8 | b[11] << 16),
             "subsystem_vendor": "0x%04x" % subsystem[0],
             "subsystem_device": "0x%04x" % subsystem[1], "irq": str(irq),
             "numa_node": str(numa_node)}
    if revision:
        attrs["revision"] = "0x%02x" % b[8]
    if link:
        ms, mw, cs, cw = link
        attrs.update(max_link_speed=pcie_speed_attr(ms), max_link_width=str(mw),
                     current_link_speed=pcie_speed_attr(cs), current_link_width=str(cw))
    attrs.update(extra)
    return attrs


def write_pci_function(root, addr, path, cfg, attrs, driver=None, msi_irqs=()):
    """sys/devices/PATH (PATH = pci0000:BB/.../ADDR) with its attributes, config and
    msi_irqs/N ("msi" or "msix") files, the sys/bus/pci/devices/ADDR link and, for a
    bound function, the driver link. Returns the directory (relative to root)."""
    base = "sys/devices/" + path
    for k, v in attrs.items():
        write(root, base + "/" + k, v + "\n")
    write(root, base + "/config", bytes(cfg.b))
    for irq, kind in msi_irqs:
        write(root, base + "/msi_irqs/%d" % irq, kind + "\n")
    symlink(root, "sys/bus/pci/devices/" + addr, "../../../devices/" + path)
    if driver:
        depth = path.count("/") + 2  # up to sys/
        symlink(root, base + "/driver", "../" * depth + "bus/pci/drivers/" + driver)
    return base


def write_netdev(root, name, ifindex, attrs, stats, pci=None):
    """sys/class/net/NAME -> the device directory, below its PCI function for
    pci = (address, sysfs path) or under devices/virtual/net; there ifindex, the
    attributes (strings), statistics/* (from stats, missing ones 0) and the device
    link of a PCI interface."""
    if pci:
        dev_dir = "devices/%s/net/%s" % (pci[1], name)
    else:
        dev_dir = "devices/virtual/net/" + name
    symlink(root, "sys/class/net/" + name, "../../" + dev_dir)
    base = "sys/" + dev_dir
    write(root, base + "/ifindex", "%d\n" % ifindex)
    for k, v in attrs.items():
        write(root, base + "/" + k, v + "\n")
    for f in STAT_FILES:
        write(root, base + "/statistics/" + f, "%d\n" % stats.get(f, 0))
    if pci:
        symlink(root, base + "/device", "../../../" + pci[0])


# ------------------------------------------------------------- interrupts ---
class Irq:
    """A numbered line of /proc/interrupts: per-CPU counts, chip, hwirq, flow, actions."""

    def __init__(self, num, chip, hwirq, flow, actions, ncpu):
        self.num, self.chip, self.hwirq, self.flow, self.actions = num, chip, hwirq, flow, actions
        self.counts = [0] * ncpu


class IrqTable:
    """The numbered IRQs of a machine, in allocation order, and the MSI/MSI-X IRQs
    of each PCI function (its sysfs msi_irqs)."""

    def __init__(self, ncpu, nr_irqs, first_dynamic=0):
        self.ncpu, self.nr_irqs, self.first_dynamic = ncpu, nr_irqs, first_dynamic
        self.irqs = []
        self.msi = {}  # PCI address -> [(irq, "msi"|"msix")]
        # /proc/interrupts pads IRQ numbers to the digits of nr_irqs, at least 3.
        self.prec = max(3, len(str(nr_irqs)))

    def __iter__(self):
        return iter(self.irqs)

    def __len__(self):
        return len(self.irqs)

    def add(self, chip, hwirq, flow, actions, num=None):
        """An IRQ numbered num or, when None, the next dynamic number (after the last
        one allocated, and not below first_dynamic)."""
        if num is None:
            num = max(self.first_dynamic - 1, self.irqs[-1].num) + 1
        irq = Irq(num, chip, hwirq, flow, actions, self.ncpu)
        self.irqs.append(irq)
        return irq

    def add_msi(self, addr, kind, chip, hwirq, actions):
        """The next dynamic IRQ, an MSI ("msi") or MSI-X ("msix") vector of addr."""
        irq = self.add(chip, hwirq, "edge", actions)
        self.msi.setdefault(addr, []).append((irq.num, kind))
        return irq

    def per_irq(self):
        """Total count of every IRQ number below nr_irqs (the /proc/stat intr line)."""
        totals = [0] * self.nr_irqs
        for irq in self.irqs:
            totals[irq.num] = sum(irq.counts)
        return totals


# The named lines of x86 /proc/interrupts (Linux 6.x), in order, with their
# descriptions; ERR and MIS print one count.
X86_NAMED_IRQS = [
    ("NMI", "Non-maskable interrupts"), ("LOC", "Local timer interrupts"),
    ("SPU", "Spurious interrupts"), ("PMI", "Performance monitoring interrupts"),
    ("IWI", "IRQ work interrupts"), ("RTR", "APIC ICR read retries"),
    ("RES", "Rescheduling interrupts"), ("CAL", "Function call interrupts"),
    ("TLB", "TLB shootdowns"), ("TRM", "Thermal event interrupts"),
    ("THR", "Threshold APIC interrupts"), ("DFR", "Deferred Error APIC interrupts"),
    ("MCE", "Machine check exceptions"), ("MCP", "Machine check polls"),
    ("ERR", None), ("MIS", None), ("PIN", "Posted-interrupt notification event"),
    ("NPI", "Nested posted-interrupt event"), ("PIW", "Posted-interrupt wakeup event")]
# Named lines that arch_irq_stat_cpu()/arch_irq_stat() add to /proc/stat "intr"
# (not TLB, MIS, PIN, NPI, PIW).
X86_INTR_SUMMED = ["NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "RES", "CAL", "TRM", "THR",
                   "DFR", "MCE", "MCP", "ERR"]


def proc_interrupts(irqs, named):
    """/proc/interrupts of an IrqTable; named = {NAME: per-CPU counts} for the
    X86_NAMED_IRQS lines ({"ERR": [n]} and {"MIS": [n]}: one count), missing ones 0."""
    prec = irqs.prec
    out = [" " * (prec + 8) + "".join("CPU%-8d" % c for c in range(irqs.ncpu))]
    for irq in sorted(irqs, key=lambda i: i.num):
        out.append("%*d: " % (prec, irq.num) + "".join("%10d " % c for c in irq.counts)
                   + " %8s %*d-%-8s  %s" % (irq.chip, prec, irq.hwirq, irq.flow,
                                            ", ".join(irq.actions)))
    for n, desc in X86_NAMED_IRQS:
        if desc is None:
            out.append("%*s: %10d" % (prec, n, named.get(n, [0])[0]))
        else:
            out.append("%*s: " % (prec, n) + "".join("%10d " % c for c in named.get(
                n, [0] * irqs.ncpu)) + "  " + desc)
    return "\n".join(out) + "\n"


# -------------------------------------------------------- stat, softirqs ---
CPU_TIME_KEYS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
                 "guest", "guest_nice"]


def cpu_ticks(rng, total, shares, threads=(), cpu=None, other=None):
    """One CPU's /proc/stat ticks out of total: each of shares {key: fraction of total}
    jittered by U(0.9, 1.1); other = ((low, high), (low, high)) then draws the user and
    system ticks of tasks not modelled; the utime/stime of the threads on this cpu (as
    from worker_threads) are added; idle is the rest."""
    v = {k: int(total * x * rng.uniform(0.9, 1.1)) for k, x in shares.items()}
    if other:
        v["user"] += rng.randrange(*other[0])
        v["system"] += rng.randrange(*other[1])
    for t in threads:
        if t["cpu"] == cpu:
            v["user"] += t["utime"]
            v["system"] += t["stime"]
    v["idle"] = total - sum(v.values())
    assert v["idle"] > 0
    return v


def proc_stat(cpus, irqs, named, softirqs, ctxt, btime, processes, procs_running,
              procs_blocked=0):
    """/proc/stat: cpus = per-CPU {CPU_TIME_KEYS: ticks} (missing keys 0), the intr
    line from the IrqTable and the X86_INTR_SUMMED named lines, softirqs as for
    proc_softirqs."""
    rows = [[r.get(k, 0) for k in CPU_TIME_KEYS] for r in cpus]
    out = ["cpu  " + " ".join(str(sum(col)) for col in zip(*rows))]
    out += ["cpu%d " % c + " ".join(map(str, r)) for c, r in enumerate(rows)]
    per_irq = irqs.per_irq()
    intr = sum(per_irq) + sum(sum(named.get(n, [])) for n in X86_INTR_SUMMED)
    out.append("intr %d %s" % (intr, " ".join(map(str, per_irq))))
    out += ["ctxt %d" % ctxt, "btime %d" % btime, "processes %d" % processes,
            "procs_running %d" % procs_running, "procs_blocked %d" % procs_blocked]
    totals = [sum(v) for _, v in softirqs]
    out.append("softirq %d %s" % (sum(totals), " ".join(map(str, totals))))
    return "\n".join(out) + "\n"


def proc_softirqs(rows):
    """/proc/softirqs from [(NAME, per-CPU counts)] in the kernel's order."""
    out = [" " * 20 + "".join("CPU%-8d" % c for c in range(len(rows[0][1])))]
    for name, vals in rows:
        out.append("%12s:" % name + "".join(" %10d" % v for v in vals))
    return "\n".join(out) + "\n"


def softnet_stat(processed, squeeze, dropped=None, qlen=None):
    """/proc/net/softnet_stat, a line of hex columns per CPU. Linux 6.1 prints 13:
    processed, dropped, time_squeeze, five 0 (was fastroute), 0 (was cpu_collision),
    received_rps, flow_limit_count (both 0 here), backlog length, CPU id. qlen =
    per-CPU (input_qlen, process_qlen) appends those two (as 6.8 does); the backlog
    length is their sum."""
    lines = []
    for c, p in enumerate(processed):
        assert p < 2 ** 32
        iq, pq = qlen[c] if qlen else (0, 0)
        cols = [p, dropped[c] if dropped else 0, squeeze[c], 0, 0, 0, 0, 0, 0, 0, 0,
                iq + pq, c] + ([iq, pq] if qlen else [])
        lines.append(" ".join("%08x" % v for v in cols))
    return "\n".join(lines) + "\n"


def spread(total, cpus, into):
    """Adds total to into[c] for the CPUs in cpus, evenly; the first takes the rest."""
    share = total // len(cpus)
    for c in cpus:
        into[c] += share
    into[cpus[0]] += total - share * len(cpus)


def pressure_cpu(avg10, avg60, avg300, total):
    """/proc/pressure/cpu: the "some" line as given, "full" all 0."""
    return ("some avg10=%.2f avg60=%.2f avg300=%.2f total=%d\n"
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" % (avg10, avg60, avg300, total))


def write_procfs(root, irqs, named, cpus, softirqs, softnet, snmp, netstat, pressure, **stat):
    """The procfs files of every fixture: stat (see proc_stat; stat = its ctxt, btime,
    processes, procs_running), pressure/cpu (pressure = (avg10, avg60, avg300,
    total)), interrupts, softirqs and the texts of net/softnet_stat, net/snmp and
    net/netstat."""
    write(root, "proc/stat", proc_stat(cpus, irqs, named, softirqs, **stat))
    write(root, "proc/pressure/cpu", pressure_cpu(*pressure))
    write(root, "proc/interrupts", proc_interrupts(irqs, named))
    write(root, "proc/softirqs", proc_softirqs(softirqs))
    write(root, "proc/net/softnet_stat", softnet)
    write(root, "proc/net/snmp", snmp)
    write(root, "proc/net/netstat", netstat)


# ------------------------------------------------------------ processes ---
def task_stat(pid, comm, state, ppid, pgrp, session, utime, stime, starttime, vsize, rss,
              rsslim, code, stack, data, brk, args, env, tty_nr=0, tpgid=-1, flags=0x400000,
              minflt=0, majflt=0, num_threads=1, sigignore=0, sigcatch=0, exit_signal=17,
              processor=0):
    """/proc/PID/task/TID/stat, the 52 fields of Linux 6.x; code, data, args and env
    are (start, end) addresses, stack the start of the stack. Fields not named are 0
    (priority 20, nice 0)."""
    f = [pid, "(%s)" % comm, state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, 0,
         majflt, 0, utime, stime, 0, 0, 20, 0, num_threads, 0, starttime, vsize, rss, rsslim,
         code[0], code[1], stack, 0, 0, 0, 0, sigignore, sigcatch, 0, 0, 0, exit_signal,
         processor, 0, 0, 0, 0, 0, data[0], data[1], brk, args[0], args[1], env[0], env[1], 0]
    assert len(f) == 52
    return " ".join(map(str, f)) + "\n"


def task_schedstat(run_ns, wait_ns, timeslices):
    """/proc/PID/task/TID/schedstat: nanoseconds on a CPU, nanoseconds waiting on
    a run queue, timeslices run (CONFIG_SCHED_INFO)."""
    return "%d %d %d\n" % (run_ns, wait_ns, timeslices)


def task_syscall(nr=None, args=(), sp=0, pc=0):
    """/proc/PID/task/TID/syscall: "running" (nr None: on a CPU or its run queue),
    "-1 SP PC" blocked outside a system call, else NR, its six arguments, SP and PC
    in hex."""
    if nr is None:
        return "running\n"
    assert nr < 0 or len(args) == 6
    vals = (list(args) if nr >= 0 else []) + [sp, pc]
    return "%d %s\n" % (nr, " ".join("0x%x" % v for v in vals))


STATE_NAMES = {"R": "R (running)", "S": "S (sleeping)"}


def task_status(name, state, tgid, pid, ppid, sid, threads, cpu, ncpu, switches, vm_kb,
                newer=False):
    """/proc/PID/task/TID/status of a root thread pinned on `cpu` of ncpu, in the
    kernel's order: switches = (voluntary, nonvoluntary), the last lines; vm_kb =
    (VmSize, VmRSS). newer: with Kthread and untag_mask, as this project's 6.18
    VM prints them (6.1 has neither)."""
    size, rss = vm_kb
    kb = lambda k, v: "%s:\t%8d kB" % (k, v)  # noqa: E731
    lines = ["Name:\t" + name, "Umask:\t0022", "State:\t" + STATE_NAMES[state],
             "Tgid:\t%d" % tgid, "Ngid:\t0", "Pid:\t%d" % pid, "PPid:\t%d" % ppid,
             "TracerPid:\t0", "Uid:\t0\t0\t0\t0", "Gid:\t0\t0\t0\t0", "FDSize:\t64",
             "Groups:\t ", "NStgid:\t%d" % pid, "NSpid:\t%d" % pid, "NSpgid:\t%d" % tgid,
             "NSsid:\t%d" % sid]
    lines += ["Kthread:\t0"] if newer else []
    lines += [kb("VmPeak", size), kb("VmSize", size), kb("VmLck", 0), kb("VmPin", 0),
              kb("VmHWM", rss), kb("VmRSS", rss), kb("RssAnon", rss // 8),
              kb("RssFile", rss - rss // 8), kb("RssShmem", 0), kb("VmData", size // 10),
              kb("VmStk", 132), kb("VmExe", 8), kb("VmLib", size // 2), kb("VmPTE", 44),
              kb("VmSwap", 0), kb("HugetlbPages", 0), "CoreDumping:\t0", "THP_enabled:\t1"]
    lines += ["untag_mask:\t0xffffffffffffffff"] if newer else []
    lines += ["Threads:\t%d" % threads, "SigQ:\t0/7823"]
    lines += ["%s:\t%016x" % (k, v) for k, v in (("SigPnd", 0), ("ShdPnd", 0), ("SigBlk", 0),
                                                ("SigIgn", 0), ("SigCgt", 0x4002))]
    lines += ["%s:\t%016x" % (k, v) for k, v in (("CapInh", 0), ("CapPrm", 0x1ffffffffff),
                                                ("CapEff", 0x1ffffffffff),
                                                ("CapBnd", 0x1ffffffffff), ("CapAmb", 0))]
    lines += ["NoNewPrivs:\t0", "Seccomp:\t0", "Seccomp_filters:\t0",
              "Speculation_Store_Bypass:\tthread vulnerable",
              "SpeculationIndirectBranch:\tconditional enabled",
              "Cpus_allowed:\t%0*x" % ((ncpu + 3) // 4, 1 << cpu), "Cpus_allowed_list:\t%d" % cpu,
              "Mems_allowed:\t00000000,00000001", "Mems_allowed_list:\t0",
              "voluntary_ctxt_switches:\t%d" % switches[0],
              "nonvoluntary_ctxt_switches:\t%d" % switches[1]]
    return "\n".join(lines) + "\n"


def worker_threads(rng, pid, comm, main_times, cpus, run_ticks, utime_share, stime_share):
    """A daemon's threads: the main thread (tid = pid, sleeping, main_times = (utime,
    stime), on cpus[0]) and a worker per CPU in cpus, tids from pid + 7, mostly
    running, busy run_ticks times a random share in the (low, high) ranges."""
    threads = [dict(tid=pid, comm=comm, state="S", utime=main_times[0], stime=main_times[1],
                    cpu=cpus[0])]
    for i, cpu in enumerate(cpus):
        threads.append(dict(tid=pid + 7 + i, comm="%s-w%d" % (comm, i),
                            state=rng.choice("RRS"),
                            utime=int(run_ticks * rng.uniform(*utime_share)),
                            stime=int(run_ticks * rng.uniform(*stime_share)), cpu=cpu))
    return threads


def write_daemon(root, pid, threads, starttime, **image):
    """proc/PID/comm and proc/PID/task/TID/stat of a daemon started by init (ppid 1, own
    session, no tty, 64-bit) with worker_threads: the main thread took privileges,
    the workers are forked without exec (PF_FORKNOEXEC) and leave no exit signal; each
    started a tick after the one before. image: minflt, majflt, vsize, rss and the
    address fields of task_stat."""
    write(root, "proc/%d/comm" % pid, threads[0]["comm"] + "\n")
    for t in threads:
        main = t["tid"] == pid
        write(root, "proc/%d/task/%d/stat" % (pid, t["tid"]), task_stat(
            t["tid"], t["comm"], t["state"], 1, pid, pid, t["utime"], t["stime"],
            starttime + t["tid"] - pid, rsslim=2 ** 64 - 1,
            flags=0x400100 if main else 0x400040, num_threads=len(threads), sigignore=4096,
            sigcatch=16386, exit_signal=17 if main else -1, processor=t["cpu"], **image))


# ------------------------------------------------------- snmp / netstat ----
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


def _insert_after(fields, after, new):
    i = fields.index(after) + 1
    return fields[:i] + new + fields[i:]


# Linux 6.8: Ip gains OutTransmits, Icmp the rate-limit counters, TcpExt the PAWS
# split and TCP-AO counters.
IP_FIELDS_6_8 = IP_FIELDS_6_1 + ["OutTransmits"]
ICMP_FIELDS_6_8 = _insert_after(ICMP_FIELDS_6_1, "OutErrors",
                                ["OutRateLimitGlobal", "OutRateLimitHost"])
TCPEXT_FIELDS_6_8 = _insert_after(TCPEXT_FIELDS_6_1, "PAWSEstab", [
    "BeyondWindow", "TSEcrRejected", "PAWSOldAck", "PAWSTimewait"]) + [
    "TCPAORequired", "TCPAOBad", "TCPAOKeyNotFound", "TCPAOGood", "TCPAODroppedIcmps"]
SNMP_FIELDS = {"6.1": (IP_FIELDS_6_1, ICMP_FIELDS_6_1, TCPEXT_FIELDS_6_1),
               "6.8": (IP_FIELDS_6_8, ICMP_FIELDS_6_8, TCPEXT_FIELDS_6_8)}


def snmp_table(name, fields, values):
    """A header/value line pair of /proc/net/snmp or /proc/net/netstat; fields
    missing from `values` are 0."""
    return "%s: %s\n%s: %s\n" % (name, " ".join(fields), name,
                                 " ".join(str(values.get(f, 0)) for f in fields))


def proc_net_snmp(kernel, ip, icmp, icmpmsg, tcp, udp):
    """/proc/net/snmp of Linux `kernel` ("6.1" or "6.8") from the nonzero counters of
    each table (IcmpMsg: the types present, in order). DefaultTTL and Tcp's Rto*/
    MaxConn are Linux's unless given; UdpLite is all 0."""
    ip_fields, icmp_fields, _ = SNMP_FIELDS[kernel]
    tcp = dict(dict(RtoAlgorithm=1, RtoMin=200, RtoMax=120000, MaxConn=-1), **tcp)
    return (snmp_table("Ip", ip_fields, dict(dict(DefaultTTL=64), **ip))
            + snmp_table("Icmp", icmp_fields, icmp)
            + snmp_table("IcmpMsg", list(icmpmsg), icmpmsg)
            + snmp_table("Tcp", TCP_FIELDS, tcp) + snmp_table("Udp", UDP_FIELDS, udp)
            + snmp_table("UdpLite", UDP_FIELDS, {}))


def proc_net_netstat(kernel, tcpext, ipext):
    """/proc/net/netstat of Linux `kernel` from the nonzero TcpExt and IpExt counters."""
    return (snmp_table("TcpExt", SNMP_FIELDS[kernel][2], tcpext)
            + snmp_table("IpExt", IPEXT_FIELDS, ipext))


def ip_ledger(rx, tx, local_in, local_out, tcp_in, tcp_out, tcp_retrans, icmp_in, icmp_out,
              udp_noports, udp_rcvbuf, udp_ignored):
    """IP-level packet counts of a host whose NICs carry rx / tx IP packets of TCP
    (tcp_in / tcp_out segments, tcp_retrans more sent), ICMP and UDP, and whose local
    traffic (lo, containers) is TCP. UDP datagrams arriving = rx - TCP - ICMP =
    InDatagrams + NoPorts + InErrors + IgnoredMulti; UDP sent = tx - TCP (incl.
    retransmits) - ICMP. Returns in_receives, out_requests, tcp_in, tcp_out (InSegs,
    OutSegs) and udp (the Udp table, see udp_counters)."""
    return dict(in_receives=rx + local_in, out_requests=tx + local_out,
                tcp_in=tcp_in + local_in, tcp_out=tcp_out + local_out,
                udp=udp_counters(rx - tcp_in - icmp_in - udp_noports - udp_rcvbuf - udp_ignored,
                                 tx - tcp_out - tcp_retrans - icmp_out, udp_noports,
                                 udp_rcvbuf, udp_ignored))


def udp_counters(in_datagrams, out_datagrams, no_ports, rcvbuf_errors, ignored_multi):
    """The Udp table when every receive error is a full socket buffer (InErrors =
    RcvbufErrors)."""
    return dict(InDatagrams=in_datagrams, NoPorts=no_ports, InErrors=rcvbuf_errors,
                OutDatagrams=out_datagrams, RcvbufErrors=rcvbuf_errors,
                IgnoredMulti=ignored_multi)


# ---------------------------------------------------------------- ethtool ---
def ethtool_text(pairs):
    """`ethtool -S` output for (name, value) pairs."""
    return "NIC statistics:\n" + "".join("     %s: %d\n" % (n, v) for n, v in pairs)


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


def bridge_bus_numbers(c, primary, secondary, subordinate, sec_latency=0):
    """Type 1 header bus number registers (0x18-0x1b)."""
    c.u8(0x18, primary)
    c.u8(0x19, secondary)
    c.u8(0x1a, subordinate)
    c.u8(0x1b, sec_latency)


def bridge_windows(c, mem=None, pref=None, io=None, pref_64bit=True):
    """Type 1 forwarding windows as (base, limit) byte addresses; None disables one
    (base above limit). The I/O window decodes 16 bits, the prefetchable one 64 bits
    (32 with pref_64bit=False)."""
    io_base, io_limit = io or (0xf000, 0)
    mem_base, mem_limit = mem or (0xfff00000, 0)
    pref_base, pref_limit = pref or (0xfff00000, 0)
    pref_type = 1 if pref_64bit else 0
    c.u8(0x1c, (io_base >> 8) & 0xf0)
    c.u8(0x1d, (io_limit >> 8) & 0xf0)
    c.u16(0x20, (mem_base >> 16) & 0xfff0)
    c.u16(0x22, (mem_limit >> 16) & 0xfff0)
    c.u16(0x24, ((pref_base >> 16) & 0xfff0) | pref_type)
    c.u16(0x26, ((pref_limit >> 16) & 0xfff0) | pref_type)
    if pref_64bit:
        c.u32(0x28, pref_base >> 32)
        c.u32(0x2c, pref_limit >> 32)


# ------------------------------------------------ PCIe (Gen1..Gen5) ---
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
