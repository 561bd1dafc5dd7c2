"""Reads a recording back from its files alone, as bottleneckd would (the
replay rule: samples/NNNNNN first, then static/), for lab/test_simulate.py:
recording.yaml, /proc/stat, softnet_stat, snmp, netdev statistics,
/proc/interrupts, the target threads' task files, the soaker and the irqtime
files.
Standard library only.
"""

import hashlib
import os

from model import target_threads

def parse_yaml(text):
    """The YAML subset recording.yaml uses: nested maps by indentation and
    lists of maps ("- key: value")."""
    root = {}
    stack = [(-1, root)]
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        while stack[-1][0] >= indent and len(stack) > 1:
            stack.pop()
        parent = stack[-1][1]
        if body.startswith("- "):
            item = {}
            parent.append(item)
            stack.append((indent, item))
            body, indent = body[2:], indent + 2
            parent = item
        key, _, value = body.partition(":")
        value = value.strip()
        if value:
            parent[key] = value
        else:
            child = [] if key == "runs" else {}
            parent[key] = child
            stack.append((indent, child))
    return root


def cpu_lines(text):
    return {f[0]: list(map(int, f[1:])) for f in (l.split() for l in text.splitlines())
            if f and f[0].startswith("cpu")}


def snmp(text):
    out, lines = {}, text.splitlines()
    for head, vals in zip(lines[0::2], lines[1::2]):
        table = head.split(":")[0]
        for k, v in zip(head.split()[1:], vals.split()[1:]):
            out[table + "." + k] = int(v)
    return out


def softnet_rows(text):
    """Each CPU's columns (processed, dropped, time_squeeze, ..., received_rps
    at index 9, ...)."""
    return [[int(x, 16) for x in l.split()] for l in text.splitlines() if l.strip()]


def softnet(text):
    """(processed, dropped, time_squeeze) summed over CPUs."""
    rows = softnet_rows(text)
    return tuple(sum(r[i] for r in rows) for i in range(3))


def irqtime(text):
    """The irqtime file (docs/recording-format.md): {"mono_ns", "generation",
    "attach", "cpus": {cpu: {"hardirq": (ns, count), "unattributed": ns,
    "overflow": count, "softirq": {VECTOR: (ns, count)}}}, "irqs": {(irq,
    cpu): {"hardirq": (ns, count), "net": (ns, count)}}}."""
    out = {"cpus": {}, "irqs": {}}
    for line in text.splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] in ("format", "mono_ns", "generation"):
            out[f[0]] = int(f[1])
        elif f[0] == "attach":
            out["attach"] = f[1]
        elif f[0] == "cpu":
            assert (f[2], f[5], f[7]) == ("hardirq", "unattributed", "overflow"), line
            out["cpus"][int(f[1])] = {
                "hardirq": (int(f[3]), int(f[4])), "unattributed": int(f[6]),
                "overflow": int(f[8]),
                "softirq": {f[i]: (int(f[i + 1]), int(f[i + 2])) for i in range(9, len(f), 3)}}
        elif f[0] == "irq":
            assert (f[3], f[6], len(f)) == ("hardirq", "net", 9), line
            out["irqs"][(int(f[1]), int(f[2]))] = {"hardirq": (int(f[4]), int(f[5])),
                                                   "net": (int(f[7]), int(f[8]))}
        else:
            raise ValueError("irqtime: unknown line %r" % line)
    return out


def task_times(text):
    """(utime, stime) in ticks of a /proc/PID/task/TID/stat line (fields 14, 15)."""
    f = text.rsplit(")", 1)[1].split()  # f[0] is field 3, the state
    return int(f[11]), int(f[12])


TASK_FILES = ("stat", "schedstat", "status", "wchan", "syscall")


def task(files):
    """A thread's task files (name -> text): its stat state and times, schedstat,
    context switches (status), wchan and system call number (None: running)."""
    status = dict(l.split(":\t", 1) for l in files["status"].splitlines())
    run_ns, wait_ns, slices = map(int, files["schedstat"].split())
    call = files["syscall"].split()[0]
    return dict(state=files["stat"].rsplit(")", 1)[1].split()[0],
                times=task_times(files["stat"]), run_ns=run_ns, wait_ns=wait_ns,
                timeslices=slices, voluntary=int(status["voluntary_ctxt_switches"]),
                involuntary=int(status["nonvoluntary_ctxt_switches"]),
                wchan=files["wchan"], syscall=None if call == "running" else int(call))


class Recording:
    """A generated recording, read with the replay rule: samples/k first, then static/."""

    def __init__(self, scenario, path):
        self.s, self.path = scenario, path
        with open(os.path.join(path, "recording.yaml")) as f:
            self.info = parse_yaml(f.read())
        self.n = int(self.info["samples"])
        self.nic = self.s.topo.netdev(self.s.nic)

    def read(self, k, rel):
        for base in (os.path.join(self.path, "samples", "%06d" % k), os.path.join(self.path, "static")):
            p = os.path.join(base, rel)
            if os.path.exists(p):
                with open(p) as f:
                    return f.read()
        raise FileNotFoundError(rel)

    def task_files(self, k, tid):
        """The texts of a target thread's task files at sample k (name -> text)."""
        pid = self.s.machine.app.pid
        return {f: self.read(k, "proc/%d/task/%d/%s" % (pid, tid, f)) for f in TASK_FILES}

    def stat(self, k, name):
        return int(self.read(k, "sys/class/net/%s/statistics/%s" % (self.nic.name, name)))

    def tick(self, k):
        """Counters at sample k, as a flat dict."""
        d = snmp(self.read(k, "proc/net/snmp"))
        text = self.read(k, "proc/net/softnet_stat")
        d.update(zip(("processed", "backlog_dropped", "squeeze"), softnet(text)))
        d["softnet_cpus"] = softnet_rows(text)
        app = self.s.machine.app
        d["thread"] = task_times(self.read(k, "proc/%d/task/%d/stat" % (app.pid, app.pid)))
        d["tasks"] = {th.comm: task(self.task_files(k, th.tid))
                      for th in target_threads(self.s.machine)}
        for name in ("rx_packets", "tx_packets", "rx_missed_errors"):
            d[name] = self.stat(k, name)
        cpus = cpu_lines(self.read(k, "proc/stat"))
        d["cpus"] = {c: v for c, v in cpus.items() if c != "cpu"}
        d["cpu_total"] = cpus["cpu"]
        irqs = [irq.num for irq in self.s.topo.nic_irqs[self.nic.name]]
        d["nic_irqs"] = sum(sum(map(int, l.split(":")[1].split()[:self.s.topo.ncpu]))
                            for l in self.read(k, "proc/interrupts").splitlines()
                            if l.split(":")[0].strip() in map(str, irqs))
        ncpu = self.s.topo.ncpu
        d["interrupts"] = {l.split(":")[0].strip(): list(map(int, l.split(":")[1].split()[:ncpu]))
                           for l in self.read(k, "proc/interrupts").splitlines()[1:]
                           if l.split(":")[0].strip().isdigit()}
        if self.info.get("irqtime") == "true":
            d["irqtime"] = irqtime(self.read(k, "irqtime"))
        if self.s.machine.soaker:
            rows = [l.split() for l in self.read(k, "soaker").splitlines()
                    if l and l[0].isdigit()]
            d["soaker"] = {int(r[0]): (int(r[1]), int(r[2]), float(r[3])) for r in rows}
        return d

    def deltas(self):
        """[(load or None, counters at k-1, counters at k)] for k = 1..n-1."""
        ticks = [self.tick(k) for k in range(self.n)]
        return [(self.s.load_at(k - 1.0), ticks[k - 1], ticks[k]) for k in range(1, self.n)]


def tree_digest(path):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(path)):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            p = os.path.join(dirpath, name)
            h.update(os.path.relpath(p, path).encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            else:
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()
