"""Tests of the host simulator (python3 -m unittest discover -s lab, or
python3 lab/test_simulate.py). Every scenario is generated into a temporary
directory and read back as bottleneckd would read it, from the files alone:

- structure: recording.yaml (docs/recording-format.md), numbered samples with
  increasing times, the kernel files in every sample, the sysfs topology;
- the target threads' task files in the kernel's formats, schedstat's running
  time the stat's, each thread's second shared out whole;
- conservation, tick by tick: CPU ticks per CPU = interval x USER_HZ, the drop
  ladder (arrivals = NIC drops + rx, rx = processed + backlog drops,
  processed = datagrams read + RcvbufErrors), the echo, the soaker's counters,
  the irqtime file (each CPU's hardirq + softirq nanoseconds are the model's
  interrupt time and fit in the interval; each NIC queue's IRQ adds up to
  its CPU's IRQ-driven time);
- ground truth: each run's label is what its files show (docs/verdict-rules.md
  section 2),
  checked against the scenario's inputs and published figures, not by running
  the model again; the echo lab's cases (the generator on the same host,
  softirq charged to the thread, burst loss) against the real lab's figures;
  the waiting threads (a sleeping echo, a lock handoff) against their inputs.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)

from bus import Bus  # noqa: E402
from host_state import arch  # noqa: E402
from model import simulate_tick, target_threads  # noqa: E402
from read_recording import Recording, tree_digest  # noqa: E402
from recorder import record  # noqa: E402
from scenarios import SCENARIOS  # noqa: E402

USER_HZ = 100
# The verdict labels: the one list, base/verdict_labels.def (its C++ enum).
with open(os.path.join(LAB, "..", "base", "verdict_labels.def"), encoding="utf-8") as _f:
    LABELS = set(re.findall(r'^BN_VERDICT_LABEL\(k\w+, "([a-z]+)"', _f.read(), re.M))
PROC_FILES = ["stat", "interrupts", "softirqs", "net/softnet_stat", "net/snmp", "net/netstat",
              "pressure/cpu"]
# The task files as the kernel prints them: wchan without a newline.
SCHEDSTAT = r"\A\d+ \d+ \d+\n\Z"
WCHAN = r"\A(0|[a-z_][a-z0-9_]*)\Z"
SYSCALL = r"\A(running|-1 0x[0-9a-f]+ 0x[0-9a-f]+|\d+( 0x[0-9a-f]+){8})\n\Z"
STATUS_LINE = r"\A[A-Za-z0-9_]+:\t"


# --------------------------------------------------------------- tests ---
GENERATED = {}  # every scenario, generated once for all the tests


def setUpModule():
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # tmpfs: fast clean-up
    GENERATED["tmp"] = tmp = tempfile.mkdtemp(prefix="lab-test-", dir=base)
    recs, truth = {}, {}
    for name, make in SCENARIOS.items():
        s = make()
        truth[name] = record(s, os.path.join(tmp, name))
        recs[name] = Recording(s, os.path.join(tmp, name))
    GENERATED["recs"], GENERATED["truth"] = recs, truth
    GENERATED["deltas"] = {name: r.deltas() for name, r in recs.items()}


def tearDownModule():
    shutil.rmtree(GENERATED.get("tmp", ""), ignore_errors=True)


class Generated(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.recs, cls.deltas = GENERATED["tmp"], GENERATED["recs"], GENERATED["deltas"]
        cls.truth = GENERATED["truth"]


class SimulatorTest(Generated):

    def test_cli_lists_every_scenario_and_rejects_bad_usage(self):
        out = subprocess.run([sys.executable, os.path.join(LAB, "simulate.py"), "--list"],
                             capture_output=True, text=True, check=True).stdout
        for name in SCENARIOS:
            self.assertIn(name, out)
        bad = subprocess.run([sys.executable, os.path.join(LAB, "simulate.py"), "nope", "x"],
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)

    def test_recording_yaml(self):
        for name, r in self.recs.items():
            with self.subTest(name):
                i = r.info
                self.assertEqual(set(i), {"format", "version", "interval_seconds", "source",
                                          "created", "host", "soaker", "irqtime", "samples",
                                          "runs"})
                self.assertEqual(i["format"], "bottleneckd-recording")
                self.assertEqual(i["version"], "2")
                self.assertEqual(i["irqtime"], "true" if r.s.irqtime else "false")
                self.assertEqual(i["source"], "simulated")
                self.assertEqual(float(i["interval_seconds"]), 1.0)
                self.assertEqual(int(i["host"]["cpus"]), r.s.topo.ncpu)
                self.assertEqual(i["soaker"], "true" if r.s.machine.soaker else "false")
                self.assertGreaterEqual(len(i["runs"]), 2)
                last = (r.n - 1) * 1.0
                for run in i["runs"]:
                    self.assertIn(run["expected"]["label"], LABELS)
                    start, end = float(run["start"]), float(run["end"])
                    self.assertTrue(0 <= start < end <= last, run)
                    self.assertTrue(30 <= end - start <= 60, run)  # 30-60 samples a run
                    load = next(l for l in r.s.loads if l.name == run["name"])
                    pps, bits = (int(run["offered_packets_per_second"]),
                                 int(run["offered_bits_per_second"]))
                    self.assertEqual(pps, round(load.pps))
                    self.assertAlmostEqual(bits / (pps * load.payload * 8), 1.0, delta=1e-4)

    def test_samples_numbered_timed_and_complete(self):
        for name, r in self.recs.items():
            with self.subTest(name):
                dirs = sorted(os.listdir(os.path.join(r.path, "samples")))
                self.assertEqual(dirs, ["%06d" % k for k in range(r.n)])
                times = []
                for k in range(r.n):
                    sample = os.path.join(r.path, "samples", dirs[k])
                    with open(os.path.join(sample, "time")) as f:
                        mono, wall = map(float, f.read().split())
                    times.append((mono, wall))
                    for rel in PROC_FILES:
                        self.assertTrue(os.path.isfile(os.path.join(sample, "proc", rel)), rel)
                    self.assertEqual(os.path.exists(os.path.join(sample, "soaker")),
                                     r.s.machine.soaker)
                    self.assertEqual(os.path.isfile(os.path.join(sample, "irqtime")), r.s.irqtime)
                    links = sorted(os.listdir(os.path.join(sample, "sys/class/net")))
                    self.assertEqual(links, sorted(n.name for n in r.s.topo.netdevs))
                    stats = os.path.join(sample, "sys/class/net", r.nic.name, "statistics")
                    self.assertEqual(len(os.listdir(stats)), 24)  # Linux >= 4.6
                for (m0, w0), (m1, w1) in zip(times, times[1:]):
                    self.assertAlmostEqual(m1 - m0, 1.0, places=6)
                    self.assertAlmostEqual(w1 - w0, 1.0, places=6)

    def test_static_topology_resolves(self):
        for name, r in self.recs.items():
            with self.subTest(name):
                sys_root = os.path.join(r.path, "static", "sys")
                devices = os.listdir(os.path.join(sys_root, "bus/pci/devices"))
                self.assertEqual(len(devices), len(r.s.topo.pci))
                for addr in devices:
                    d = os.path.realpath(os.path.join(sys_root, "bus/pci/devices", addr))
                    self.assertTrue(d.startswith(os.path.realpath(sys_root)))
                    with open(os.path.join(d, "config"), "rb") as f:
                        cfg = f.read()
                    self.assertIn(len(cfg), (256, 4096))
                    with open(os.path.join(d, "vendor")) as f:
                        self.assertEqual(int(f.read(), 16), cfg[0] | cfg[1] << 8)
                if not r.nic.pci:  # veth: a virtual interface, no device link
                    net = os.path.join(sys_root, "class/net", r.nic.name)
                    self.assertEqual(os.readlink(net), "../../devices/virtual/net/" + r.nic.name)
                    self.assertFalse(os.path.lexists(os.path.join(net, "device")))
                    continue
                dev = os.path.realpath(os.path.join(sys_root, "class/net", r.nic.name, "device"))
                pci = dev if r.nic.driver != "virtio_net" else os.path.dirname(dev)
                self.assertEqual(os.path.basename(pci), r.nic.pci)

    def test_cpu_ticks_sum_to_interval(self):
        for name, deltas in self.deltas.items():
            with self.subTest(name):
                for _, a, b in deltas:
                    total = [0] * 10
                    for cpu, vals in b["cpus"].items():
                        diff = [y - x for x, y in zip(a["cpus"][cpu], vals)]
                        self.assertTrue(all(d >= 0 for d in diff), diff)
                        self.assertEqual(sum(diff), 1 * USER_HZ, (cpu, diff))
                        total = [t + d for t, d in zip(total, diff)]
                    self.assertEqual([y - x for x, y in zip(a["cpu_total"], b["cpu_total"])],
                                     total)

    def test_drop_ladder_conserved_each_tick(self):
        for name, deltas in self.deltas.items():
            with self.subTest(name):
                machine = self.recs[name].s.machine
                echo = machine.app.echo
                for load, a, b in deltas:
                    d = {k: b[k] - a[k] for k in b if isinstance(b[k], int)}
                    # veth: softnet also counts each echo's receive in the peer's namespace
                    peer = d["Udp.OutDatagrams"] if machine.nic.virtual else 0
                    self.assertEqual(d["rx_packets"], d["processed"] - peer + d["backlog_dropped"])
                    self.assertEqual(d["Ip.InReceives"], d["processed"] - peer)
                    self.assertEqual(d["processed"] - peer,
                                     d["Udp.InDatagrams"] + d["Udp.RcvbufErrors"])
                    self.assertEqual(d["Udp.InErrors"], d["Udp.RcvbufErrors"])
                    if echo:
                        self.assertEqual(d["Udp.OutDatagrams"], d["Udp.InDatagrams"])
                        self.assertEqual(d["tx_packets"], d["Udp.OutDatagrams"])
                    arrivals = d["rx_packets"] + d["rx_missed_errors"]
                    offered = load.pps if load else 0.0
                    # The offered rate varies per tick by the scenario's jitter (3 sigma).
                    slack = 3 * self.recs[name].s.jitter * offered + 2
                    self.assertLessEqual(abs(arrivals - offered), slack, (load, d))

    def test_interrupts_follow_moderation(self):
        for name, deltas in self.deltas.items():
            nic = self.recs[name].s.machine.nic
            with self.subTest(name):
                for _, a, b in deltas:
                    rx = b["rx_packets"] - a["rx_packets"] + b["rx_missed_errors"] - \
                        a["rx_missed_errors"]
                    irqs = b["nic_irqs"] - a["nic_irqs"]
                    nq = len(nic.queue_cpus)
                    cap = rx if nic.irq_limit is None else min(rx, nic.irq_limit * nq)
                    self.assertLessEqual(irqs, cap + nq)
                    if nic.ring:  # run to completion: one batch of at most a ring an interrupt
                        served = b["rx_packets"] - a["rx_packets"]
                        self.assertLessEqual(served, nic.ring * (irqs + 1))
                    elif nic.irq_limit is not None and rx > 2 * nic.irq_limit * nq:
                        self.assertGreaterEqual(irqs, nic.irq_limit * nq - nq)

    def test_soaker_counters(self):
        for name, deltas in self.deltas.items():
            if not self.recs[name].s.machine.soaker:
                continue
            with self.subTest(name):
                for _, a, b in deltas:
                    for cpu, (it1, ns1, rate) in b["soaker"].items():
                        it0, ns0, _ = a["soaker"][cpu]
                        self.assertGreaterEqual(it1, it0)
                        busy_ns = ns1 - ns0
                        self.assertLessEqual(busy_ns, 1e9 + 1)
                        # hidden time >= 0: the loop never runs faster than calibrated
                        self.assertLessEqual((it1 - it0) / rate, busy_ns / 1e9 + 1e-6)
                        # the soaker's time is charged as user time (ticks of 10 ms)
                        user = b["cpus"]["cpu%d" % cpu][0] - a["cpus"]["cpu%d" % cpu][0]
                        self.assertLessEqual(busy_ns, user * 1e7 + 1e7)

    def test_irqtime_is_the_models_interrupt_time(self):
        # Per CPU and interval: hardirq + softirq nanoseconds fit in the
        # interval and are the model's interrupt time (not /proc/stat's ticks),
        # to the nanosecond; counters never go back; the header is constant.
        for name, deltas in self.deltas.items():
            truth, rec = self.truth[name], self.recs[name]
            if not rec.s.irqtime:
                continue
            with self.subTest(name):
                for k, (_, a, b) in enumerate(deltas, start=1):
                    ia, ib = a["irqtime"], b["irqtime"]
                    self.assertEqual((ib["format"], ib["generation"], ib["attach"]),
                                     (1, 4242, "tp_btf"))
                    self.assertEqual(ib["mono_ns"] - ia["mono_ns"], 1000000000)
                    self.assertEqual(sorted(ib["cpus"]), list(range(rec.s.topo.ncpu)))
                    for c, cb in ib["cpus"].items():
                        ca = ia["cpus"][c]
                        hard = cb["hardirq"][0] - ca["hardirq"][0]
                        vectors = {v: (ns - ca["softirq"][v][0], n - ca["softirq"][v][1])
                                   for v, (ns, n) in cb["softirq"].items()}
                        self.assertEqual(len(vectors), 10)
                        self.assertGreaterEqual(hard, 0)
                        self.assertTrue(all(ns >= 0 and n >= 0 for ns, n in vectors.values()))
                        total = hard + sum(ns for ns, _ in vectors.values())
                        self.assertLessEqual(total, 1000000000, (k, c))
                        model = truth[k][c] - truth[k - 1][c]
                        self.assertLessEqual(abs(total - model), 1, (k, c, total, model))
                        # softirq counts are /proc/softirqs' (the model costs only the network's)
                        self.assertEqual(set(v for v, (ns, _) in vectors.items() if ns),
                                         set(v for v in ("NET_RX", "NET_TX") if vectors[v][0]))

    def test_irqtime_per_irq_adds_up_to_its_cpu(self):
        # Every queue interrupt's hardirq and the network softirq it raised,
        # summed over the IRQs of a CPU, are that CPU's hardirq and its
        # IRQ-driven NET_RX + NET_TX time (the rest is unattributed: a veth's
        # receive); the IRQs and their counts are /proc/interrupts' queues.
        for name, deltas in self.deltas.items():
            rec = self.recs[name]
            if not rec.s.irqtime:
                continue
            queues = {str(irq.num) for irq in rec.s.topo.nic_irqs[rec.nic.name]}
            with self.subTest(name):
                for _, a, b in deltas:
                    ia, ib = a["irqtime"], b["irqtime"]
                    self.assertTrue({str(irq) for irq, _ in ib["irqs"]} <= queues)
                    for c, cb in ib["cpus"].items():
                        ca = ia["cpus"][c]
                        d = lambda x, y, i=0: x[i] - y[i]  # noqa: E731
                        mine = [(key, e) for key, e in ib["irqs"].items() if key[1] == c]
                        zero = {"hardirq": (0, 0), "net": (0, 0)}
                        was = lambda key: ia["irqs"].get(key, zero)  # noqa: E731
                        irq_hard = sum(d(e["hardirq"], was(key)["hardirq"]) for key, e in mine)
                        irq_count = sum(d(e["hardirq"], was(key)["hardirq"], 1) for key, e in mine)
                        irq_net = sum(d(e["net"], was(key)["net"]) for key, e in mine)
                        net = sum(d(cb["softirq"][v], ca["softirq"][v])
                                  for v in ("NET_RX", "NET_TX"))
                        self.assertEqual(irq_hard, d(cb["hardirq"], ca["hardirq"]))
                        self.assertEqual(irq_count, d(cb["hardirq"], ca["hardirq"], 1))
                        self.assertEqual(irq_net, net - (cb["unattributed"] - ca["unattributed"]))
                        for (irq, _), e in mine:  # the count /proc/interrupts shows for it
                            shown = b["interrupts"][str(irq)][c] - a["interrupts"][str(irq)][c]
                            self.assertEqual(d(e["hardirq"], was((irq, c))["hardirq"], 1), shown)
                    if rec.s.machine.nic.virtual:  # no interrupt: all of it unattributed
                        self.assertEqual(ib["irqs"], {})
                    elif b["rx_packets"] > a["rx_packets"]:
                        self.assertTrue(all(cb["unattributed"] == 0 for cb in ib["cpus"].values()))
                        self.assertGreater(sum(e["net"][0] for e in ib["irqs"].values()), 0)

    def test_bus_model_matches_the_documented_worked_examples(self):
        # docs/bus-model.md section 4: em2 (PCI 33/32) and em0 (PCI-X 133/64), e1000.
        em2 = Bus("pci", clock_hz=100e6 / 3, width_bytes=4)
        self.assertEqual(em2._clocks(1066, 1066), (294.8125, 410.5, 7))
        self.assertAlmostEqual(em2.utilisation(36621, 1066, 36621, 1066, 8000), 0.78, places=2)
        em0 = Bus("pcix", clock_hz=400e6 / 3, width_bytes=8)
        self.assertEqual(em0._clocks(1066, 1066), (160.875, 180.5, 8))
        self.assertAlmostEqual(em0.utilisation(67139, 1066, 67139, 1066, 7952), 0.17, places=2)
        gen3x8 = Bus("pcie", gts=8.0, lanes=8)
        self.assertAlmostEqual(gen3x8._pcie_capacity() * 8 / 1e9, 57.97, places=2)


class ThreadStateTest(Generated):
    """The target threads' task files (stat, schedstat, status, wchan, syscall)."""

    def test_task_files_in_kernel_formats(self):
        # Each file as the kernel prints it; status names the thread, its
        # process and CPU and ends with the context switches; a thread sampled
        # on a CPU (stat R) has wchan 0 and syscall "running", a blocked one
        # (S) both.
        for name, r in self.recs.items():
            threads = target_threads(r.s.machine)
            with self.subTest(name):
                for k in range(r.n):
                    for th in threads:
                        f = r.task_files(k, th.tid)
                        self.assertRegex(f["schedstat"], SCHEDSTAT)
                        self.assertRegex(f["wchan"], WCHAN)
                        self.assertRegex(f["syscall"], SYSCALL)
                        lines = f["status"].splitlines()
                        self.assertTrue(all(re.match(STATUS_LINE, l) for l in lines), lines)
                        self.assertEqual(lines[0], "Name:\t" + th.comm)
                        self.assertEqual([l.split(":")[0] for l in lines[-2:]],
                                         ["voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"])
                        st = dict(l.split(":\t", 1) for l in lines)
                        self.assertEqual(
                            (st["Pid"], st["Tgid"], st["Threads"], st["Cpus_allowed_list"]),
                            (str(th.tid), str(r.s.machine.app.pid), str(len(threads)), str(th.cpu)))
                        state = f["stat"].rsplit(")", 1)[1].split()[0]
                        self.assertEqual(st["State"][0], state)
                        self.assertEqual(f["wchan"] != "0", state == "S")
                        self.assertEqual(f["syscall"] != "running\n", state == "S")

    def test_schedstat_is_the_stat_time_and_fits_each_second(self):
        # run_ns is the thread's CPU time its stat's utime + stime count in
        # ticks: within a tick of each counter rounded to ticks (utime, stime,
        # the softirq charged to the app's thread), over the whole recording.
        # Running and runnable fit in every second (waiting, the rest, is never
        # negative); switches only grow and timeslices count them.
        for name, deltas in self.deltas.items():
            m = self.recs[name].s.machine
            with self.subTest(name):
                for _, a, b in deltas:
                    for comm, tb in b["tasks"].items():
                        ta = a["tasks"][comm]
                        rounded = 3 if comm == m.app.comm and m.softirq_to_app else 2
                        run_ticks = tb["run_ns"] / 1e9 * USER_HZ
                        self.assertLess(abs(run_ticks - sum(tb["times"])), rounded)
                        run, wait = tb["run_ns"] - ta["run_ns"], tb["wait_ns"] - ta["wait_ns"]
                        self.assertTrue(run >= 0 and wait >= 0, (run, wait))
                        self.assertLessEqual(run + wait, 1e9)
                        self.assertTrue(tb["voluntary"] >= ta["voluntary"]
                                        and tb["involuntary"] >= ta["involuntary"])
                        self.assertEqual(tb["timeslices"], tb["voluntary"] + tb["involuntary"])

    def test_each_threads_second_is_shared_out_whole(self):
        # The model's ThreadTime: running + runnable + its waits = 1, none negative.
        for name, r in self.recs.items():
            ncpu = r.s.topo.ncpu
            for load in [None] + r.s.loads:
                t = simulate_tick(r.s.machine, load, (1.0, [1.0] * ncpu))
                for th in t.threads:
                    parts = [th.running, th.runnable] + list(th.waits.values())
                    self.assertTrue(all(x >= 0 for x in parts), (name, load, th))
                    self.assertAlmostEqual(sum(parts), 1.0, places=9)


def run_means(rec, deltas, load):
    """Per-second means over a run's ticks: drops per rung, delivered, the app
    thread's utime and stime (shares of a CPU), and for each CPU its accounting
    busy (soaker time removed), soaker idle, interrupt share of busy, steal,
    user, system and softirq shares, softnet processed and received_rps, from
    the files."""
    rows = [(a, b) for l, a, b in deltas if l is load]
    n = float(len(rows))
    m = {}
    for key in ("rx_packets", "rx_missed_errors", "backlog_dropped", "squeeze",
                "Udp.RcvbufErrors", "Udp.InDatagrams", "nic_irqs"):
        m[key] = sum(b[key] - a[key] for a, b in rows) / n
    m["utime"], m["stime"] = (sum(b["thread"][i] - a["thread"][i] for a, b in rows) / n / USER_HZ
                              for i in range(2))
    m["threads"] = {}
    for comm in rows[0][1]["tasks"]:
        d = {k: sum(b["tasks"][comm][k] - a["tasks"][comm][k] for a, b in rows) / n
             for k in ("run_ns", "wait_ns", "voluntary", "involuntary")}
        running, runnable = d["run_ns"] / 1e9, d["wait_ns"] / 1e9
        m["threads"][comm] = dict(running=running, runnable=runnable,
                                  waiting=1 - running - runnable, voluntary=d["voluntary"],
                                  involuntary=d["involuntary"],
                                  sampled={(b["tasks"][comm]["wchan"], b["tasks"][comm]["syscall"])
                                           for _, b in rows})
    m["cpus"] = {}
    for c in range(rec.s.topo.ncpu):
        name = "cpu%d" % c
        f = [sum(b["cpus"][name][i] - a["cpus"][name][i] for a, b in rows) / n / USER_HZ
             for i in range(10)]
        soaker_s = idle = 0.0
        if rec.s.machine.soaker:
            soaker_s = sum(b["soaker"][c][1] - a["soaker"][c][1] for a, b in rows) / n / 1e9
            idle = sum((b["soaker"][c][0] - a["soaker"][c][0]) / b["soaker"][c][2]
                       for a, b in rows) / n
        busy = f[0] + f[1] + f[2] + f[5] + f[6] - soaker_s  # user nice system irq softirq
        softnet = [sum(b["softnet_cpus"][c][i] - a["softnet_cpus"][c][i] for a, b in rows) / n
                   for i in (0, 9)]
        m["cpus"][c] = dict(busy=busy, soaker_idle=idle, steal=f[7],
                            irq_share=(f[5] + f[6]) / busy if busy else 0.0, user=f[0],
                            system=f[2], softirq=f[6], processed=softnet[0],
                            received_rps=softnet[1])
    return m


class GroundTruthTest(Generated):
    """Each run's expected label is what its files show."""

    def test_every_run_supports_its_label(self):
        for name, rec in self.recs.items():
            deltas = self.deltas[name]
            previous = None
            for load in rec.s.loads:
                with self.subTest(scenario=name, run=load.name, label=load.label):
                    m = run_means(rec, deltas, load)
                    nic, backlog, sock = (m["rx_missed_errors"], m["backlog_dropped"],
                                          m["Udp.RcvbufErrors"])
                    app = rec.s.machine.app
                    cpu = m["cpus"][int(load.resource[3:])] if load.resource.startswith("cpu") \
                        else None
                    if load.label == "cpu" and load.resource.startswith("thread "):
                        self.assertEqual(load.resource, "thread " + app.comm)  # the reader
                        self.assertGreaterEqual(m["utime"] + m["stime"], 0.95)
                        cpu = m["cpus"][app.cpu]
                    saturated = lambda c: (c["soaker_idle"] < 0.02 if rec.s.machine.soaker  # noqa
                                           else c["busy"] + c["steal"] > 0.98)
                    if load.label == "none" and load.bursts:  # brief stalls, 0.1 % at most
                        self.assertEqual((nic, backlog), (0, 0))
                        self.assertLess(sock, 0.001 * load.pps)
                        self.assertAlmostEqual(m["Udp.InDatagrams"] / load.pps, 1.0, delta=0.01)
                    elif load.label == "none":
                        self.assertEqual((nic, backlog, sock), (0, 0, 0))
                        self.assertAlmostEqual(m["Udp.InDatagrams"] / load.pps, 1.0, delta=0.01)
                    elif load.label == "cpu":
                        self.assertEqual((nic, backlog), (0, 0))
                        self.assertGreater(sock, 0.005 * load.pps)
                        self.assertTrue(saturated(cpu), cpu)
                    elif load.label == "interrupt":
                        self.assertTrue(saturated(cpu), cpu)
                        self.assertGreaterEqual(cpu["irq_share"], 0.5)
                        if nic + backlog == 0:  # the softirq starves the reader on its CPU
                            self.assertEqual("cpu%d" % app.cpu, load.resource)
                            self.assertGreater(sock, 0.005 * load.pps)
                        self.assertLess(m["Udp.InDatagrams"], previous)  # livelock: falling
                    elif load.label == "wait":  # a thread waits, no CPU full, the socket drops
                        self.assertEqual((nic, backlog), (0, 0))
                        self.assertGreater(sock, 0.005 * load.pps)
                        th = m["threads"][load.resource[len("thread "):]]
                        self.assertGreaterEqual(th["waiting"], 0.5)
                        self.assertGreaterEqual(th["running"], 0.05)
                        self.assertTrue(all(c["busy"] + c["steal"] < 0.8
                                            for c in m["cpus"].values()), m["cpus"])
                    elif load.label == "bus":
                        self.assertGreater(nic, 0.01 * load.pps)
                        self.assertEqual((backlog, sock), (0, 0))
                        for c in m["cpus"].values():
                            self.assertGreaterEqual(c["soaker_idle"], 0.20)
                        # docs/bus-model.md's em2 clocks per echoed packet and interrupt.
                        rx = m["Udp.InDatagrams"]
                        util = (rx * (294.8125 + 410.5) + 8000 * 7) / (100e6 / 3)
                        self.assertGreater(util, 0.99)
                    else:  # undetermined: conflicting or weak evidence
                        own = m["cpus"][app.cpu]
                        if nic + backlog + sock == 0:  # the host steals, nothing lost
                            self.assertGreaterEqual(own["steal"], 0.5)
                            self.assertGreater(own["busy"] + own["steal"], 0.9)
                        elif rec.s.machine.nic.ring:    # the ring overflows, nothing is full
                            self.assertGreater(nic, 0.01 * load.pps)
                            self.assertEqual((backlog, sock), (0, 0))
                            self.assertGreaterEqual(own["soaker_idle"], 0.15)
                        else:                           # CPU and bus saturated together
                            self.assertGreater(nic, 0)
                            self.assertLess(own["soaker_idle"], 0.05)
                    previous = m["Udp.InDatagrams"]

    def test_seed_plateau(self):
        rec = self.recs["seed-sweep"]
        m = rec.s.machine
        # Accounting misses the hardirq time: 8000 interrupts/s x 23.75 µs.
        plateau = 1 - m.nic.irq_limit * m.costs.hardirq_per_interrupt * 1e-6
        for load in rec.s.loads:
            if load.label != "cpu":
                continue
            with self.subTest(load.name):
                c = run_means(rec, self.deltas["seed-sweep"], load)["cpus"][0]
                self.assertAlmostEqual(c["busy"], plateau, delta=0.02)
                self.assertLess(c["soaker_idle"], 0.01)
        # The seed's table: 32 extra copies echo 297.1-298.6 Mbit/s whatever the load.
        for load in rec.s.loads:
            if load.copies == 32:
                got = run_means(rec, self.deltas["seed-sweep"], load)["Udp.InDatagrams"]
                self.assertAlmostEqual(got * 1024 * 8 / 1e6, 298, delta=0.1 * 298)

    def test_seed_as_written(self):
        # The mails read as written: the soaker itself read 80-85 % busy. The
        # model's inputs: 11.5 µs a datagram plus 0.25 µs per KiB copied, 10 µs
        # an interrupt, at most 8000 interrupts/s, a 256-descriptor ring taken
        # whole by each interrupt. From the files: every run keeps at least
        # 15 % delivered idle (a fifth or so, never saturated), loses only at
        # the NIC (the bus at 17 % at most: the ring) and never more than a
        # ring per interrupt; the CPU time the echoed datagrams and the
        # interrupts cost is what the soaker did not get; throughput falls
        # with the copies at 550 Mbit/s and the 32-copy runs echo less than
        # the copy-free ones at every load.
        rec, deltas = self.recs["seed-as-written"], self.deltas["seed-as-written"]
        m = rec.s.machine
        means = {l.name: (l, run_means(rec, deltas, l)) for l in rec.s.loads}
        for name, (load, r) in means.items():
            with self.subTest(name):
                c = r["cpus"][0]
                self.assertGreaterEqual(c["soaker_idle"], 0.15)
                self.assertLess(c["soaker_idle"], 0.35)
                self.assertGreater(r["rx_missed_errors"], 0.01 * load.pps)
                self.assertEqual((r["backlog_dropped"], r["Udp.RcvbufErrors"]), (0, 0))
                self.assertLessEqual(r["nic_irqs"], m.nic.irq_limit + 1)
                self.assertLessEqual(r["rx_packets"], m.nic.ring * (r["nic_irqs"] + 1))
                w = 11.5 + load.copies * 0.25
                work = (r["Udp.InDatagrams"] * w + r["nic_irqs"] * 10.0) * 1e-6
                bg = sum(m.background[0])
                self.assertAlmostEqual(1 - c["soaker_idle"], work + bg, delta=0.02)
        sweep = [means["echo-550M" + ("-%dcopies" % k if k else "")][1]["Udp.InDatagrams"]
                 for k in (0, 8, 16, 24, 32)]
        self.assertEqual(sweep, sorted(sweep, reverse=True))
        self.assertLess(sweep[-1], 0.75 * sweep[0])
        for mbit in (500, 550, 600):
            k0 = means["echo-%dM" % mbit][1]["Udp.InDatagrams"]
            k32 = means["echo-%dM-32copies" % mbit][1]["Udp.InDatagrams"]
            self.assertLess(k32, 0.8 * k0)

    def test_hot_core_average_is_30_percent(self):
        rec = self.recs["hot-core"]
        load = next(l for l in rec.s.loads if l.label == "cpu")
        cpus = run_means(rec, self.deltas["hot-core"], load)["cpus"]
        self.assertGreater(cpus[5]["busy"], 0.99)
        self.assertAlmostEqual(sum(c["busy"] for c in cpus.values()) / 8, 0.30, delta=0.03)
        self.assertTrue(all(c["busy"] < 0.5 for i, c in cpus.items() if i != 5))

    def test_generator_same_host_loses_at_the_readers_socket(self):
        # The real lab (1024 bytes, K=10000): cpu0 99.6 % busy, 35 % of it
        # softirq; the echo thread 98 % of cpu1, mostly user; 11.9 k/s echoed of
        # 845 k/s sent; no backlog drops.
        rec = self.recs["generator-same-host"]
        load = next(l for l in rec.s.loads if l.label == "cpu")
        m = run_means(rec, self.deltas["generator-same-host"], load)
        gen, reader = m["cpus"][0], m["cpus"][1]
        self.assertGreater(gen["busy"], 0.99)         # the busiest CPU is the generator's:
        self.assertAlmostEqual(gen["softirq"], 0.35, delta=0.02)  # veth's receive runs there
        self.assertGreater(gen["user"] + gen["system"], 0.6)
        self.assertAlmostEqual(gen["processed"] / load.pps, 1.0, delta=0.01)
        self.assertGreater(reader["busy"], 0.99)
        self.assertAlmostEqual(m["utime"] + m["stime"], 0.98, delta=0.01)
        self.assertGreater(m["utime"], 0.9)
        self.assertAlmostEqual(m["Udp.InDatagrams"], 11900, delta=0.03 * 11900)
        self.assertAlmostEqual(reader["processed"], m["Udp.InDatagrams"], places=6)  # echoes
        self.assertAlmostEqual(m["Udp.RcvbufErrors"], load.pps - m["Udp.InDatagrams"],
                               delta=0.01 * load.pps)
        self.assertEqual((m["backlog_dropped"], m["nic_irqs"], gen["received_rps"]), (0, 0, 0))

    def test_softirq_charged_to_thread(self):
        # The real lab (64 bytes, RPS to cpu1): cpu1 ~77 % softirq, the thread
        # ~92 % of cpu1 almost all stime, 166 k/s echoed of 620 k/s, no backlog
        # drops, time_squeeze ~0, cpu0 processed ~0, received_rps on cpu1.
        rec = self.recs["softirq-charged-to-thread"]
        deltas = self.deltas["softirq-charged-to-thread"]
        light, flood = rec.s.loads
        m = run_means(rec, deltas, flood)
        sender, reader = m["cpus"][0], m["cpus"][1]
        self.assertAlmostEqual(reader["softirq"], 0.77, delta=0.02)
        self.assertGreater(reader["busy"], 0.99)
        self.assertAlmostEqual(m["utime"] + m["stime"], 0.92, delta=0.02)
        self.assertLess(m["utime"], 0.02)
        # Not its own time: the thread's stime exceeds all system time of its CPU.
        self.assertGreater(m["stime"] - reader["system"], 0.6)
        self.assertAlmostEqual(m["Udp.InDatagrams"], 166000, delta=0.03 * 166000)
        self.assertGreater(m["Udp.RcvbufErrors"], 0.7 * flood.pps)
        self.assertEqual((m["backlog_dropped"], m["squeeze"], m["nic_irqs"]), (0, 0, 0))
        self.assertEqual((sender["processed"], sender["softirq"]), (0, 0))
        self.assertAlmostEqual(reader["processed"], m["rx_packets"] + m["Udp.InDatagrams"],
                               places=6)
        self.assertAlmostEqual(reader["received_rps"], m["rx_packets"] / 64, delta=2)
        # Receive livelock: more offered, less delivered.
        self.assertGreater(run_means(rec, deltas, light)["Udp.InDatagrams"], m["Udp.InDatagrams"])

    def test_burst_loss(self):
        rec = self.recs["burst-loss"]
        for load in rec.s.loads:
            with self.subTest(load.name):
                ticks = [(i, b["Udp.RcvbufErrors"] - a["Udp.RcvbufErrors"])
                         for i, (l, a, b) in enumerate(self.deltas["burst-loss"]) if l is load]
                # the socket loses exactly the bursts, in their ticks (tick i starts at i s)
                self.assertEqual([lost for i, lost in ticks if lost],
                                 [n for _, n in sorted(load.bursts.items())])
                self.assertEqual({i - load.start for i, lost in ticks if lost}, set(load.bursts))
                total = sum(lost for _, lost in ticks) / (load.pps * (load.end - load.start))
                self.assertAlmostEqual(total, 0.0007, delta=0.0001)
                cpus = run_means(rec, self.deltas["burst-loss"], load)["cpus"]
                self.assertTrue(all(c["busy"] < 0.35 for c in cpus.values()), cpus)
                self.assertGreater(cpus[1]["busy"], 0.2)

    def test_saturated_threads_never_mostly_wait(self):
        # The reader of a CPU-bound or livelocked run is on its CPU, or on its
        # run queue while interrupts or steal take the CPU: never off it in its
        # own waits.
        for name, rec in self.recs.items():
            comm = rec.s.machine.app.comm
            for load in rec.s.loads:
                if load.label not in ("cpu", "interrupt"):
                    continue
                with self.subTest(scenario=name, run=load.name):
                    th = run_means(rec, self.deltas[name], load)["threads"][comm]
                    self.assertLess(th["waiting"], 0.01)
                    self.assertEqual(th["sampled"], {("0", None)})

    def test_light_echo_waits_in_its_socket_receive(self):
        # A single-threaded echo off its CPU most of the time blocks in
        # recvfrom on an empty socket (every sample says so), and loses nothing
        # (bursts aside).
        recvfrom = {"x86_64": 45, "i386": 371}
        for name, rec in self.recs.items():
            app = rec.s.machine.app
            if app.sleep_per_packet or app.worker:
                continue
            for load in rec.s.loads:
                m = run_means(rec, self.deltas[name], load)
                th = m["threads"][app.comm]
                if th["waiting"] < 0.65:
                    continue
                with self.subTest(scenario=name, run=load.name):
                    self.assertEqual(load.label, "none")
                    self.assertEqual(th["sampled"], {("__skb_wait_for_more_packets",
                                                      recvfrom[arch(rec.s.topo.kernel)])})
                    self.assertGreater(th["voluntary"], 0)
                    self.assertLess(m["Udp.RcvbufErrors"], 0.001 * load.pps)

    def past_capacity(self, name, cap):
        """(load, run_means) of each run of a waiting scenario but its first,
        after checking that the first run's reader waits on its socket and
        that each later run delivers `cap` and loses the rest at the socket."""
        rec, deltas = self.recs[name], self.deltas[name]
        below, *above = rec.s.loads
        reader = run_means(rec, deltas, below)["threads"]["udpecho"]
        self.assertEqual(reader["sampled"], {("__skb_wait_for_more_packets", 45)})
        for load in above:
            m = run_means(rec, deltas, load)
            self.assertAlmostEqual(m["Udp.InDatagrams"], cap, delta=0.01 * cap)
            self.assertAlmostEqual(m["Udp.RcvbufErrors"], load.pps - cap, delta=0.01 * load.pps)
            yield load, m

    def test_waiting_server(self):
        # Per datagram 30.35 µs of cpu1 (2 % background) and 40 µs asleep: at
        # most 1 / (30.35 / 0.98 + 40) µs = 14.09 k/s, asleep 56 % of the time,
        # blocking once per datagram. Below that it waits on its socket.
        cap = 1 / ((30.35 / 0.98 + 40) * 1e-6)
        for load, m in self.past_capacity("waiting-server", cap):
            with self.subTest(load.name):
                th = m["threads"]["udpecho"]
                self.assertTrue(0.4 < m["cpus"][1]["busy"] < 0.6, m["cpus"][1])
                self.assertAlmostEqual(th["waiting"], 40e-6 * cap, delta=0.01)
                self.assertAlmostEqual(th["voluntary"], cap, delta=0.01 * cap)
                self.assertEqual(th["sampled"], {("hrtimer_nanosleep", 230)})

    def test_lock_handoff(self):
        # Per datagram the reader's 8 µs, the worker's 50 µs (3 % background on
        # each CPU) and two 12 µs wake-ups: at most 1 / ((8 + 50) / 0.97 + 24)
        # µs = 11.93 k/s. The reader waits on the mutex for the rest, the
        # worker (60 % of cpu6) for the next datagram; each blocks once per
        # datagram. Below that the reader waits on its socket.
        cap = 1 / (((8 + 50) / 0.97 + 24) * 1e-6)
        for load, m in self.past_capacity("lock-handoff", cap):
            with self.subTest(load.name):
                reader, worker = m["threads"]["udpecho"], m["threads"]["udpwork"]
                self.assertAlmostEqual(reader["waiting"], (50 / 0.97 + 24) * 1e-6 * cap, delta=0.01)
                self.assertEqual(reader["sampled"], {("futex_wait_queue", 202)})
                self.assertAlmostEqual(worker["running"], 50e-6 * cap, delta=0.01)
                self.assertLess(worker["waiting"], 0.5)
                self.assertEqual(worker["sampled"], {("0", None)})
                for th in (reader, worker):
                    self.assertAlmostEqual(th["voluntary"], cap, delta=0.01 * cap)
                self.assertTrue(all(c["busy"] < 0.7 for c in m["cpus"].values()), m["cpus"])

    def test_deterministic(self):
        for name in ("light", "softirq-charged-to-thread", "lock-handoff"):
            again = os.path.join(self.tmp, name + "-again")
            record(SCENARIOS[name](), again)
            self.assertEqual(tree_digest(again), tree_digest(self.recs[name].path))


if __name__ == "__main__":
    unittest.main()
