"""Writes a scenario as a recording (docs/recording-format.md, version 2):
recording.yaml with the runs and their ground truth, static/ (everything read
at the first tick, with the whole sysfs topology) and samples/NNNNNN/, each
with the irqtime file (the model's interrupt time, measured as the eBPF
source measures it).

Tick k covers [k-1, k) seconds from sample 0 and is simulated with the load
step covering that interval (none between runs). Deterministic: all
randomness comes from random.Random(scenario.seed). Standard library only.
"""

import os
import random
import shutil
from dataclasses import dataclass

from host_state import HostState
from model import simulate_tick

FORMAT_VERSION = 2


@dataclass
class Scenario:
    name: str
    summary: str              # one line for --list and recording.yaml's comment
    machine: object           # model.Machine
    topo: object              # machines.Topology
    nic: str                  # the interface the load arrives on
    loads: list               # model.Load, the runs, in time order
    duration: float           # seconds from sample 0 to the last sample
    seed: int
    jitter: float = 0.003     # relative standard deviation of the offered rate per tick
    bg_jitter: float = 0.10   # background CPU varies by +-10 % per tick
    interval: float = 1.0
    uptime: float = 600.0     # the box's uptime at sample 0
    created: str = "2026-11-30T12:00:00Z"
    irqtime: bool = True      # samples carry the irqtime file (the eBPF source loaded at boot)

    @property
    def samples(self):
        return int(round(self.duration / self.interval)) + 1

    def load_at(self, t):
        """The load step covering second t, or None."""
        for load in self.loads:
            if load.start <= t < load.end:
                return load
        return None


def _number(x):
    return ("%.1f" % x) if float(x).is_integer() else repr(float(x))


def recording_yaml(s):
    """recording.yaml of scenario s."""
    out = ["# written by lab/simulate.py %s: %s" % (s.name, s.summary),
           "format: bottleneckd-recording", "version: %d" % FORMAT_VERSION,
           "interval_seconds: %s" % _number(s.interval), "source: simulated",
           "created: %s" % s.created, "host:", "  hostname: %s" % s.topo.hostname,
           "  kernel: %s" % s.topo.kernel, "  cpus: %d" % s.topo.ncpu,
           "soaker: %s" % ("true" if s.machine.soaker else "false"),
           "irqtime: %s" % ("true" if s.irqtime else "false"),
           "samples: %d" % s.samples, "runs:"]
    for load in s.loads:
        out += ["  - name: %s" % load.name, "    start: %s" % _number(load.start),
                "    end: %s" % _number(load.end),
                "    offered_bits_per_second: %d" % round(load.pps * load.payload * 8),
                "    offered_packets_per_second: %d" % round(load.pps),
                "    expected:", "      label: %s" % load.label]
        if load.resource:
            out.append("      resource: %s" % load.resource)
    return "\n".join(out) + "\n"


def record(s, out_dir):
    """Writes scenario s into out_dir (replacing a previous recording there).
    Returns the model's interrupt time of each CPU at each sample, exact
    (HostState.true_irq_ns, nanoseconds since boot), for the tests."""
    for sub in ("static", "samples", "recording.yaml"):
        path = os.path.join(out_dir, sub)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    os.makedirs(out_dir, exist_ok=True)
    m, rng = s.machine, random.Random(s.seed)
    state = HostState(m, s.topo, s.nic)
    ncpu = s.topo.ncpu
    # Boot to sample 0: no load, no soaker.
    state.advance(simulate_tick(m, None, (1.0, [1.0] * ncpu)), s.uptime, False)
    state.start_uptime = state.uptime
    truth = []
    for k in range(s.samples):
        if k > 0:
            load = s.load_at((k - 1) * s.interval)
            offered = 1.0 + max(-3.0, min(3.0, rng.gauss(0.0, 1.0))) * s.jitter
            bg = [1.0 + rng.uniform(-s.bg_jitter, s.bg_jitter) for _ in range(ncpu)]
            burst = load.burst_at((k - 1) * s.interval) if load else 0
            state.advance(simulate_tick(m, load, (offered, bg), burst), s.interval, m.soaker)
        mono = s.uptime + k * s.interval
        wall = s.topo.btime + mono
        if k == 0:
            state.write_static(os.path.join(out_dir, "static"), m.soaker)
        state.write_sample(os.path.join(out_dir, "samples", "%06d" % k), m.soaker, mono, wall,
                           s.irqtime)
        truth.append(list(state.true_irq_ns))
    with open(os.path.join(out_dir, "recording.yaml"), "w") as f:
        f.write(recording_yaml(s))
    return truth
