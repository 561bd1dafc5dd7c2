"""The simulated kernel's counters and the files it shows, tick after tick.

HostState turns the model's rates (model.Tick) into the cumulative integer
counters the kernel keeps (CPU ticks in USER_HZ, IRQ counts, softnet, SNMP,
netdev statistics, the soaker's counters, the irqtime source's nanoseconds,
the target threads' schedstat and context switches) and writes them in the
kernel's formats with scripts/fixture_lib.py (the irqtime file in the
recording's format, docs/recording-format.md). Integers
are carried exactly: every counter is the floor of a running sum, so nothing
is lost or made up between ticks, and the drop ladder is split in order (rx = arrivals - NIC drops,
processed = rx - backlog drops, delivered = processed - socket drops).
Standard library only.
"""

import math
import os

from machines import ethtool_pairs, fl
from model import accounted, frame_bytes, target_threads

USER_HZ = 100
HZ = 250
CATEGORIES = ["user_app", "system_app", "user_bg", "system_bg", "soaker", "irq", "softirq",
              "idle", "steal"]
IRQTIME_GENERATION = 4242  # the irqtime program's id: loaded once, at boot
SOFTIRQS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
            "HRTIMER", "RCU"]
THREAD_COUNTERS = ["run_ns", "wait_ns", "voluntary", "involuntary"]
# A blocked thread's wchan per kind of wait (model.ThreadTime.waits), Linux
# 6.1's names (6.18 calls the futex wait futex_do_wait), and its system call:
# number, six arguments and PC per architecture, as a C echo makes them (fd 3,
# a 64 KiB buffer, the peer's address and length on the stack).
WCHAN = {"recv": "__skb_wait_for_more_packets", "sleep": "hrtimer_nanosleep",
         "lock": "futex_wait_queue", "work": "futex_wait_queue"}
SYSCALLS = {
    "x86_64": {
        "recv": (45, (0x3, 0x55d0c2a4e040, 0x10000, 0, 0x7ffd3a1c9e50, 0x7ffd3a1c9e4c),
                 0x7f3a5c3f2a3a),                              # recvfrom
        "sleep": (230, (0x1, 0, 0x7ffd3a1c9e40, 0, 0, 0), 0x7f3a5c3b7503),  # clock_nanosleep
        "lock": (202, (0x55d0c2a500a0, 0x80, 0x2, 0, 0, 0), 0x7f3a5c38f1e6),  # futex: the mutex
        "work": (202, (0x55d0c2a500c8, 0x189, 0, 0, 0, 0xffffffff),       # futex: the condvar
                 0x7f3a5c38bf16)},
    "i386": {"recv": (371, (0x3, 0x804c060, 0x10000, 0, 0xbfc3a1d8, 0xbfc3a1d4), 0xb7f2e549)},
}
# The SP of a blocked main thread and of a pthread (its stack is mapped), per architecture.
STACKS = {"x86_64": (0x7ffd3a1c9e18, 0x7f3a5bffed48), "i386": (0xbfc3a1a0, 0xb75ff2d0)}


class Carry:
    """A running sum handed out as integers: take(x) adds x and returns the
    whole units now due (at most cap)."""

    def __init__(self):
        self.c = 0.0

    def take(self, x, cap=None):
        self.c += x
        n = max(0, int(math.floor(self.c + 1e-9)))
        if cap is not None:
            n = min(n, cap)
        self.c -= n
        return n


def split_ticks(carry, shares, total):
    """Splits `total` integer ticks among categories in proportion to shares
    (dict, summing to about total), carrying the fractions in `carry` (dict):
    every result >= 0 and they sum to exactly total."""
    out = {}
    for k, x in shares.items():
        carry[k] = carry.get(k, 0.0) + x
        out[k] = max(0, int(math.floor(carry[k])))
    left = total - sum(out.values())
    order = sorted(shares, key=lambda k: carry[k] - out[k], reverse=True)
    i = 0
    while left > 0:
        out[order[i % len(order)]] += 1
        left -= 1
        i += 1
    for k in reversed(order):  # rare: clamped negatives gave too many
        while left < 0 and out[k] > 0:
            out[k] -= 1
            left += 1
    for k in out:
        carry[k] -= out[k]
    return out


def kernel_tables(kernel):
    """fixture_lib's file layouts ("6.1" or "6.8") closest to a kernel release."""
    major, minor = (int(x) for x in kernel.split(".")[:2])
    return "6.8" if (major, minor) >= (6, 8) else "6.1"


def softnet_text(processed, squeeze, dropped, received_rps, kernel):
    """/proc/net/softnet_stat (fixture_lib's, with the backlog lengths of Linux
    6.8 and later) with received_rps, column 10, filled in."""
    n = len(processed)
    text = fl.softnet_stat(processed, squeeze, dropped,
                           qlen=[(0, 0)] * n if kernel_tables(kernel) == "6.8" else None)
    if not any(received_rps):
        return text
    lines = []
    for line, rps in zip(text.splitlines(), received_rps):
        cols = line.split()
        cols[9] = "%08x" % rps
        lines.append(" ".join(cols))
    return "\n".join(lines) + "\n"


def split_int(total, weights):
    """Splits an integer in proportion to weights (largest remainder)."""
    s = sum(weights)
    if s <= 0:
        return [total] + [0] * (len(weights) - 1)
    raw = [total * w / s for w in weights]
    out = [int(math.floor(r)) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - out[i], reverse=True)[
            :total - sum(out)]:
        out[i] += 1
    return out


def arch(kernel):
    """The machine's architecture, from its kernel release."""
    return "i386" if kernel.endswith("686-pae") else "x86_64"


class HostState:
    def __init__(self, machine, topo, nic_name):
        self.m, self.topo, self.nic = machine, topo, nic_name
        n = topo.ncpu
        self.uptime = 0.0
        self.ticks = [{k: 0 for k in CATEGORIES} for _ in range(n)]
        self.tick_carry = [{} for _ in range(n)]
        self.carry = {}
        self.named = {k: [0] * n for k in ("LOC", "RES", "CAL", "TLB")}
        self.named.update(IWI=[2] + [0] * (n - 1), MCP=[6] * n)
        self.softirqs = {k: [0] * n for k in SOFTIRQS}
        self.softnet = {k: [0] * n
                        for k in ("processed", "dropped", "squeeze", "received_rps")}
        self.snmp = dict(InReceives=0, InDelivers=0, OutRequests=0, InDatagrams=0,
                         RcvbufErrors=0, OutDatagrams=0, InOctets=0, OutOctets=0)
        self.ctxt, self.processes = 0, 300
        self.psi_total, self.psi_avg = 0.0, [0.0, 0.0, 0.0]
        self.soaker_iter = [0] * n
        self.soaker_ns = [0] * n
        self.app_charged = 0  # softirq ticks charged to the app thread (Machine.softirq_to_app)
        self.thread_counts = [{k: 0 for k in THREAD_COUNTERS} for _ in target_threads(machine)]
        # The irqtime source (sources/irqtime.h), loaded when the host booted:
        # per CPU, nanoseconds of each part of its interrupt time (_irqtime),
        # and per NIC queue its interrupts and the network softirqs they raised.
        self.irq_ns = [{} for _ in range(n)]
        self.irq_split = [{} for _ in range(n)]  # split_ticks' carries
        self.queue_irqs, self.queue_net = {}, {}  # queue -> count since the load
        self.true_irq_ns = [0.0] * n  # the model's hardirq + softirq time, exact (for tests)
        self.stats = {}
        for d in topo.netdevs:  # what each interface saw before the recording
            base = 214 if d.name == "lo" else 400 + 3 * d.ifindex
            size = 67 + 14 if d.name == "lo" else 60
            self.stats[d.name] = dict(rx_packets=base, tx_packets=base if d.name == "lo" else 3,
                                      rx_bytes=base * size, tx_bytes=(base if d.name == "lo" else 3) * size,
                                      rx_broadcast=base, multicast=0)
        self.last = None  # the last Tick, for procs_running and the thread state
        self.start_uptime = 0.0  # uptime when the recording started (the app started 5 s before)

    def _carry(self, key):
        return self.carry.setdefault(key, Carry())

    # ---------------------------------------------------------- advance --
    def advance(self, t, dt, soaker_on):
        """Adds dt seconds of Tick t to every counter."""
        self.uptime += dt
        self.last = t
        m = self.m
        for c, cpu in enumerate(t.cpus):
            acc, hidden = accounted(m, cpu)
            if not soaker_on:
                acc["idle"] += acc["soaker"]
                acc["soaker"] = 0.0
            shares = {k: v * dt * USER_HZ for k, v in acc.items()}
            got = split_ticks(self.tick_carry[c], shares, int(round(dt * USER_HZ)))
            for k, v in got.items():
                self.ticks[c][k] += v
            if c == m.app.cpu and m.softirq_to_app:
                self.app_charged += self._carry("charged").take(
                    acc["softirq"] * m.softirq_to_app * dt * USER_HZ, got["softirq"])
            if soaker_on:
                rate = m.soaker_rate * (1 + 0.003 * c)
                self.soaker_iter[c] += self._carry(("iter", c)).take(rate * cpu.idle * dt)
                self.soaker_ns[c] += self._carry(("sns", c)).take(acc["soaker"] * dt * 1e9)
            busy = 1.0 - cpu.idle
            self.named["LOC"][c] += self._carry(("loc", c)).take((HZ * busy + 4) * dt)
            if self.topo.ncpu > 1:
                self.named["RES"][c] += self._carry(("res", c)).take((30 * busy + 1) * dt)
                self.named["CAL"][c] += self._carry(("cal", c)).take((5 * busy + 0.2) * dt)
                self.named["TLB"][c] += self._carry(("tlb", c)).take((2 * busy + 0.1) * dt)
            for name, rate in (("TIMER", HZ * busy + 5), ("SCHED", 80 * busy + 3),
                               ("RCU", 60 * busy + 4)):
                self.softirqs[name][c] += self._carry((name, c)).take(rate * dt)
        self._packets(t, dt)
        self._irqtime(t, dt)
        some = sum(cpu.waiting for cpu in t.cpus) / len(t.cpus)
        self.psi_total += some * dt * 1e6
        for i, period in enumerate((10.0, 60.0, 300.0)):
            w = math.exp(-dt / period)
            self.psi_avg[i] = self.psi_avg[i] * w + 100.0 * some * (1 - w)
        self._threads(t, dt)
        irqs = sum(t.interrupts)
        switches = sum(th.voluntary + th.involuntary for th in t.threads)  # each out and back in
        ctxt_rate = 150 * self.topo.ncpu + 2 * switches + (irqs if soaker_on else 0)
        self.ctxt += self._carry("ctxt").take(ctxt_rate * dt)
        self.processes += self._carry("fork").take(0.3 * dt)

    def _threads(self, t, dt):
        """schedstat's nanoseconds (running, and runnable: the rest of its time
        wanting the CPU, so the two never exceed the elapsed time) and the
        context switches of each target thread."""
        for i, th in enumerate(t.threads):
            c = self.thread_counts[i]
            on = self._carry(("on_ns", i)).take(min(1.0, th.running + th.runnable) * dt * 1e9)
            run = self._carry(("run_ns", i)).take(th.running * dt * 1e9, on)
            c["run_ns"] += run
            c["wait_ns"] += on - run
            c["voluntary"] += self._carry(("voluntary", i)).take(th.voluntary * dt)
            c["involuntary"] += self._carry(("involuntary", i)).take(th.involuntary * dt)

    def _packets(self, t, dt):
        """The drop ladder in integers, split in order, and its counters."""
        take = lambda key, x, cap=None: self._carry(key).take(x * dt, cap)  # noqa: E731
        arrivals = take("arrivals", t.offered)
        nic_drops = take("nic_drops", t.nic_bus_drops + t.nic_ring_drops, arrivals)
        ring = take("ring", t.nic_ring_drops, nic_drops)
        rx = arrivals - nic_drops
        backlog = take("backlog", t.backlog_drops, rx)
        processed = rx - backlog
        sock = take("socket", t.socket_drops, processed)
        delivered = processed - sock
        tx = delivered if self.m.app.echo else 0
        frame = frame_bytes(t.payload) if t.payload else 0
        s = self.stats[self.nic]
        s["rx_packets"] += rx
        s["rx_bytes"] += rx * frame
        s["tx_packets"] += tx
        s["tx_bytes"] += tx * frame
        s["rx_missed_errors"] = s.get("rx_missed_errors", 0) + nic_drops
        s["rx_no_buffer_count"] = s.get("rx_no_buffer_count", 0) + ring
        s["rx_csum_good"] = s.get("rx_csum_good", 0) + rx
        queues = self.topo.nic_irqs[self.nic]
        cpus = self.m.nic.queue_cpus
        q_rx = split_int(rx, t.queue_rx or [1])
        q_backlog = split_int(backlog, t.queue_backlog_drops or [1])
        q_tx = split_int(tx, [1] * len(cpus))
        for q, cpu in enumerate(cpus):
            n = self._carry(("irq", q)).take(t.interrupts[q] * dt if t.interrupts else 0)
            if queues:  # a veth has no IRQ
                queues[q].counts[cpu] += n
            net_rx = n + self._carry(("sq", q)).take(
                t.queue_squeeze[q] * dt if t.queue_squeeze else 0, None)
            self.softirqs["NET_RX"][cpu] += net_rx
            self.softnet["processed"][cpu] += q_rx[q] - q_backlog[q] if not self.m.nic.napi \
                else q_rx[q]
            self.softnet["dropped"][cpu] += q_backlog[q]
            self.softnet["squeeze"][cpu] += self._carry(("squeeze", q)).take(
                t.queue_squeeze[q] * dt if t.queue_squeeze else 0)
            net_tx = 0
            if not self.m.nic.virtual:
                net_tx = self._carry(("ntx", q)).take(q_tx[q] / 512.0)
                self.softirqs["NET_TX"][cpu] += net_tx
            if queues:  # the softirqs the queue's interrupt raised
                self.queue_irqs[q] = self.queue_irqs.get(q, 0) + n
                self.queue_net[q] = self.queue_net.get(q, 0) + net_rx + net_tx
            for f, v in (("rx_packets", q_rx[q]), ("rx_bytes", q_rx[q] * frame),
                         ("tx_packets", q_tx[q]), ("tx_bytes", q_tx[q] * frame),
                         ("rx_kicks", q_rx[q] // 64), ("tx_kicks", q_tx[q] // 8)):
                key = "q%d_%s_%s" % (q, f[:2], f[3:])
                s[key] = s.get(key, 0) + v
        if self.m.nic.virtual:
            self._veth(rx, tx)
        n = self.snmp
        n["InReceives"] += processed
        n["InDelivers"] += processed
        n["OutRequests"] += tx
        n["InDatagrams"] += delivered
        n["RcvbufErrors"] += sock
        n["OutDatagrams"] += tx
        n["InOctets"] += processed * (t.payload + 28)
        n["OutOctets"] += tx * (t.payload + 28)

    def _irqtime(self, t, dt):
        """The irqtime source's nanoseconds: each CPU's hardirq and softirq time
        in the model (not its ticks), split into what each NIC queue's
        interrupt caused there (its hardirq, the NET_RX and NET_TX softirq that
        followed) and the network softirq no interrupt raised (a veth's
        receive). The CPU's total is the floor of its running sum (never more
        than the elapsed time) and split_ticks hands it out to the parts, so
        the parts of a CPU add up to it exactly. The model gives the other
        softirqs (TIMER, SCHED, RCU) and interrupts no time."""
        queues = self.topo.nic_irqs[self.nic]
        qcpus = self.m.nic.queue_cpus
        for c, cpu in enumerate(t.cpus):
            mine = [q for q, qc in enumerate(qcpus) if qc == c] if queues else []
            parts = {}
            for q in mine:
                parts[("hard", q)] = t.queue_hardirq[q]
                parts[("rx", q)] = t.queue_softirq_rx[q]
                parts[("tx", q)] = t.queue_softirq_tx[q]
            # what no queue interrupt caused: a veth's receive
            rx = cpu.softirq - cpu.softirq_tx - sum(t.queue_softirq_rx[q] for q in mine)
            tx = cpu.softirq_tx - sum(t.queue_softirq_tx[q] for q in mine)
            parts[("hard", None)] = cpu.hardirq - sum(t.queue_hardirq[q] for q in mine)
            parts[("rx", None)] = rx
            parts[("tx", None)] = tx
            parts = {k: v * dt * 1e9 for k, v in parts.items() if v > 1e-12}  # float noise is 0
            self.true_irq_ns[c] += (cpu.hardirq + cpu.softirq) * dt * 1e9
            if not parts:
                continue
            total = self._carry(("irqtime", c)).take(sum(parts.values()))
            for k, v in split_ticks(self.irq_split[c], parts, total).items():
                self.irq_ns[c][k] = self.irq_ns[c].get(k, 0) + v

    def _veth(self, rx, tx):
        """A veth pair's softirq counts: the sender runs NET_RX once a batch (with
        RPS only to send the queue CPU an IPI: received_rps and CAL there, whose
        backlog then runs NET_RX); each echo's receive in the peer's namespace
        runs on the app's CPU (its softnet processed)."""
        m = self.m
        runs = self._carry("runs").take(rx / float(m.generator.batch))
        self.softirqs["NET_RX"][m.generator.cpu] += runs
        if m.nic.rps:
            for cpu, k in zip(m.nic.queue_cpus, split_int(runs, [1] * len(m.nic.queue_cpus))):
                self.softnet["received_rps"][cpu] += k
                self.named["CAL"][cpu] += k
                self.softirqs["NET_RX"][cpu] += k
        self.softnet["processed"][m.app.cpu] += tx
        self.softirqs["NET_RX"][m.app.cpu] += tx

    # ------------------------------------------------------------ files --
    def cpu_rows(self):
        """/proc/stat's per-CPU dicts."""
        rows = []
        for tk in self.ticks:
            rows.append(dict(user=tk["user_app"] + tk["user_bg"] + tk["soaker"],
                             system=tk["system_app"] + tk["system_bg"], idle=tk["idle"],
                             irq=tk["irq"], softirq=tk["softirq"], steal=tk["steal"]))
        return rows

    def write_proc(self, root, soaker_on):
        topo, n = self.topo, self.snmp
        on_cpu = sum(self.sampled_wait(i) is None for i in range(len(self.thread_counts)))
        running = 1 + on_cpu + (topo.ncpu if soaker_on else 0)
        tables = kernel_tables(topo.kernel)
        softnet = softnet_text(self.softnet["processed"], self.softnet["squeeze"],
                               self.softnet["dropped"], self.softnet["received_rps"], topo.kernel)
        snmp = fl.proc_net_snmp(
            tables, ip=dict(Forwarding=2, InReceives=n["InReceives"] + 9998,
                            InDelivers=n["InDelivers"] + 9998, OutRequests=n["OutRequests"] + 11303),
            icmp=dict(OutMsgs=12, OutDestUnreachs=12), icmpmsg=dict(OutType3=12),
            tcp=dict(ActiveOpens=14, PassiveOpens=9, CurrEstab=1, InSegs=9926, OutSegs=11459),
            udp=fl.udp_counters(n["InDatagrams"] + 37, n["OutDatagrams"] + 41, 12,
                                n["RcvbufErrors"], 23))
        netstat = fl.proc_net_netstat(tables, {"DelayedACKs": 212, "TCPPureAcks": 4011}, dict(
            InOctets=n["InOctets"] + 665000, OutOctets=n["OutOctets"] + 2140000,
            InNoECTPkts=n["InReceives"] + 9998))
        fl.write_procfs(root, topo.irqs, self.named, self.cpu_rows(),
                        [(k, self.softirqs[k]) for k in SOFTIRQS], softnet, snmp, netstat,
                        pressure=(self.psi_avg[0], self.psi_avg[1], self.psi_avg[2],
                                  int(self.psi_total)),
                        ctxt=self.ctxt, btime=topo.btime, processes=self.processes,
                        procs_running=running)
        self._write_app(root)

    def sampled_wait(self, i):
        """What target thread i mostly did in the last tick: None when on a CPU
        or its run queue, else the kind of wait it was in."""
        th = self.last.threads[i]
        kind, share = max(th.waits.items(), key=lambda kv: kv[1])
        return kind if share > th.running + th.runnable else None

    def _write_app(self, root):
        """The app's comm and, for each of its threads, the files of its task
        directory: stat, schedstat, status, wchan and syscall."""
        app, topo = self.m.app, self.topo
        threads = target_threads(self.m)
        fl.write(root, "proc/%d/comm" % app.pid, app.comm + "\n")
        for i, th in enumerate(threads):
            main, wait, c = i == 0, self.sampled_wait(i), self.thread_counts[i]
            state = "S" if wait else "R"
            task = "proc/%d/task/%d/" % (app.pid, th.tid)
            fl.write(root, task + "stat", self._task_stat(th, state, main, len(threads)))
            fl.write(root, task + "schedstat", fl.task_schedstat(
                c["run_ns"], c["wait_ns"], c["voluntary"] + c["involuntary"]))
            fl.write(root, task + "status", fl.task_status(
                th.comm, state, app.pid, th.tid, 790, 790, len(threads), th.cpu, topo.ncpu,
                (c["voluntary"], c["involuntary"]), (2412, 904),
                newer=kernel_tables(topo.kernel) == "6.8"))
            fl.write(root, task + "wchan", WCHAN[wait] if wait else "0")
            fl.write(root, task + "syscall", self._syscall(wait, main))

    def _task_stat(self, th, state, main, nthreads):
        """stat of a thread of the app: the main one was exec'd, the others
        cloned (PF_FORKNOEXEC, no exit signal) a tick later each."""
        app = self.m.app
        ticks = self.ticks[th.cpu]
        stime = ticks["system_app"] + (self.app_charged if main else 0)
        amd64 = arch(self.topo.kernel) == "x86_64"
        return fl.task_stat(
            th.tid, th.comm, state, ppid=790, pgrp=app.pid, session=790,
            tty_nr=34816, tpgid=app.pid, minflt=143, utime=ticks["user_app"], stime=stime,
            starttime=int((self.start_uptime - 5) * USER_HZ) + th.tid - app.pid, vsize=2469888,
            rss=226, rsslim=2 ** 64 - 1 if amd64 else 2 ** 32 - 1, code=(134512640, 134519576),
            stack=3220172208, data=(134524684, 134525192), brk=140218368,
            args=(3220174419, 3220174437), env=(3220174437, 3220176876),
            flags=0x400000 if main else 0x400040, num_threads=nthreads,
            exit_signal=17 if main else -1, processor=th.cpu)

    def _syscall(self, wait, main):
        """/proc/PID/task/TID/syscall: "running", or the wait's system call."""
        if not wait:
            return fl.task_syscall()
        a = arch(self.topo.kernel)
        nr, args, pc = SYSCALLS[a][wait]
        return fl.task_syscall(nr, args, STACKS[a][0 if main else 1], pc)

    def write_static(self, root, soaker_on):
        """Everything read at the first tick: proc, the whole sysfs topology, and
        every interface's ethtool statistics."""
        self.write_proc(root, soaker_on)
        self.topo.write_static_sys(root, self.stats)
        for d in self.topo.netdevs:
            self._write_ethtool(root, d)
        fl.keep_empty_dirs(root)

    def _write_ethtool(self, root, d):
        s = dict(self.stats[d.name])  # the MAC counts the 4-byte FCS too
        s["hw_rx_bytes"] = s["rx_bytes"] + 4 * s["rx_packets"]
        s["hw_tx_bytes"] = s["tx_bytes"] + 4 * s["tx_packets"]
        pairs = ethtool_pairs(d.driver, s, len(self.m.nic.queue_cpus))
        if pairs is not None:
            fl.write(root, "ethtool/" + d.name, fl.ethtool_text(pairs))

    def write_sample(self, root, soaker_on, mono, wall, irqtime_on=True):
        """One samples/NNNNNN directory: time, proc, every class/net link, the
        loaded interface's statistics and ethtool, the soaker's counters, the
        irqtime file."""
        fl.write(root, "time", "%.6f %.6f\n" % (mono, wall))
        self.write_proc(root, soaker_on)
        for d in self.topo.netdevs:
            link = os.path.join(root, "sys/class/net", d.name)
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink("../../" + d.dev_dir, link)
        d = self.topo.netdev(self.nic)
        for f in fl.STAT_FILES:
            fl.write(root, "sys/%s/statistics/%s" % (d.dev_dir, f),
                     "%d\n" % self.stats[d.name].get(f, 0))
        self._write_ethtool(root, d)
        if soaker_on:
            fl.write(root, "soaker", self.soaker_text(wall))
        if irqtime_on:
            fl.write(root, "irqtime", self.irqtime_text(mono))

    def irqtime_text(self, mono):
        """The irqtime file (docs/recording-format.md): every CPU with all ten
        vectors, then each NIC queue's IRQ that fired, sorted by (irq, cpu)."""
        lines = ["format 1", "mono_ns %d" % round(mono * 1e9),
                 "generation %d" % IRQTIME_GENERATION, "attach tp_btf"]
        queues = self.topo.nic_irqs[self.nic]
        qcpus = self.m.nic.queue_cpus
        for c in range(self.topo.ncpu):
            ns = self.irq_ns[c]
            part = lambda kind: sum(v for (k, _), v in ns.items() if k == kind)  # noqa: E731
            vectors = {"NET_RX": part("rx"), "NET_TX": part("tx")}
            unattributed = ns.get(("rx", None), 0) + ns.get(("tx", None), 0)
            count = sum(self.queue_irqs.get(q, 0) for q, qc in enumerate(qcpus) if qc == c)
            per_vector = " ".join("%s %d %d" % (v, vectors.get(v, 0), self.softirqs[v][c])
                                  for v in SOFTIRQS)
            lines.append("cpu %d hardirq %d %d unattributed %d overflow 0 %s" % (
                c, part("hard"), count, unattributed, per_vector))
        irqs = []
        for q, c in enumerate(qcpus):
            if queues and self.queue_irqs.get(q, 0):
                ns = self.irq_ns[c]
                irqs.append((queues[q].num, c, ns.get(("hard", q), 0), self.queue_irqs[q],
                             ns.get(("rx", q), 0) + ns.get(("tx", q), 0), self.queue_net[q]))
        for e in sorted(irqs):
            lines.append("irq %d %d hardirq %d %d net %d %d" % e)
        return "\n".join(lines) + "\n"

    def soaker_text(self, wall):
        lines = ["# cpu iterations thread_cpu_ns calibrated_iterations_per_second",
                 "sched_idle 1", "calibration_unix_seconds %d" % int(wall - 60)]
        for c in range(self.topo.ncpu):
            lines.append("%d %d %d %.1f" % (c, self.soaker_iter[c], self.soaker_ns[c],
                                            self.m.soaker_rate * (1 + 0.003 * c)))
        return "\n".join(lines) + "\n"
