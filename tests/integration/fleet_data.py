#!/usr/bin/env python3
"""Simulated bottleneckd hosts with a known truth, for the fleet report.

Writes the families the fleet report reads (bottleneckd_verdict,
bottleneckd_verdict_info, _confidence_ratio, the plateau pair, the evidence
series and bottleneckd_run_active) of every host every STEP seconds, in the
exposition bottleneckd itself writes (names, labels and types as in
docs/metrics.md), as OpenMetrics with timestamps (for `promtool tsdb
create-blocks-from openmetrics`) or as Prometheus text with millisecond
timestamps (for VictoriaMetrics' /api/v1/import/prometheus). The truth (who
was bound by what, when; the run's span) goes to a JSON file, so a test
checks the report's answer against what was injected, not against itself.

Scenarios:
  three   gen, box and a bystander; run "echo" on gen and box from +60 s to
          +300 s; gen cpu-bound (cpu0) from +120 s to the run's end, box
          interrupt-bound (cpu1) from +200 s to +240 s, the bystander never.
  fleet   --hosts N hosts; a few dozen (seeded) bound by cpu, interrupt or bus
          for a known stretch each.
"""
import argparse
import json
import random


def scenario_three(start, scale=1.0):
    """`scale` shrinks the offsets: 0.1 is the same story in 36 s."""
    at = lambda seconds: start + int(round(seconds * scale))
    hosts = {
        "gen:9858": [(at(120), at(300), "cpu", "cpu0")],
        "box:9858": [(at(200), at(240), "interrupt", "cpu1")],
        "bystander:9858": [],
    }
    run = {"name": "echo", "start": at(60), "end": at(300), "hosts": ["gen:9858", "box:9858"]}
    return hosts, run


def scenario_fleet(start, seconds, n, seed):
    rnd = random.Random(seed)
    hosts = {"host%04d:9858" % i: [] for i in range(n)}
    names = sorted(hosts)
    bound = rnd.sample(names, min(len(names), max(1, n * 36 // 1000)))
    for h in bound:
        length = rnd.randrange(600, 7200, 60)
        t0 = start + rnd.randrange(0, max(60, seconds - length), 60)
        label = rnd.choice(["cpu", "interrupt", "bus"])
        res = {"cpu": "cpu%d" % rnd.randrange(16), "interrupt": "cpu%d" % rnd.randrange(16),
               "bus": "em%d (0000:%02x:00.0)" % (rnd.randrange(4), rnd.randrange(1, 255))}[label]
        hosts[h].append((t0, t0 + length, label, res))
    return hosts, None


def number(v):
    """A sample value as text, exact (a counter near 1e10 keeps its units)."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def held(stretches, t):
    for a, b, label, res in stretches:
        if a <= t < b:
            return label, res
    return "none", ""


SIMULATED = [
    ("bottleneckd_verdict", "gauge"), ("bottleneckd_verdict_info", "gauge"),
    ("bottleneckd_verdict_confidence_ratio", "gauge"), ("bottleneckd_utilisation_plateau", "gauge"),
    ("bottleneckd_utilisation_plateau_level_ratio", "gauge"), ("bottleneckd_cpu_busy_ratio", "gauge"),
    ("bottleneckd_cpu_interrupt_ratio", "gauge"), ("bottleneckd_bus_path_utilisation_ratio", "gauge"),
    ("bottleneckd_run_active", "gauge"), ("bottleneckd_build_info", "gauge"),
    ("bottleneckd_pci_link_info", "gauge"), ("bottleneckd_network_drops_total", "counter"),
]

DROPS_PER_SECOND = 10  # bottleneckd_network_drops_total{rung="socket"}: every host, all along


def host_samples(stretches, run, host, t):
    """The simulated families' samples of `host` at time t, as a scrape of
    the daemon would give them: {family: [(labels text, value)]}; a family
    with nothing to say (run_active outside the run) is absent."""
    label, res = held(stretches, t)
    out = {
        "bottleneckd_verdict": [('bound="%s"' % b, int(label == b))
                                for b in ["cpu", "interrupt", "bus", "wait", "none", "undetermined"]],
        "bottleneckd_verdict_info": [('bound="%s",resource="%s"' % (label, res), 1)],
        "bottleneckd_verdict_confidence_ratio": [("", 0.6 if label != "none" else 0.2)],
        "bottleneckd_utilisation_plateau": [("", int(label == "interrupt"))],
        "bottleneckd_utilisation_plateau_level_ratio": [("", 0.82 if label == "interrupt" else 0)],
        "bottleneckd_cpu_busy_ratio": [('cpu="0",source="accounting"', 0.99 if label == "cpu" else 0.3)],
        "bottleneckd_cpu_interrupt_ratio": [('cpu="0",source="accounting"', 0.7 if label == "interrupt" else 0.05)],
        "bottleneckd_bus_path_utilisation_ratio": [('interface="em0",device="0000:03:00.0"',
                                                    0.97 if label == "bus" else 0.1)],
    }
    out["bottleneckd_build_info"] = [('version="0.1.0",revision="fleet-sim"', 1)]
    # A host bound by its bus at some time has a downtrained PCIe link all along.
    down = any(b == "bus" for _, _, b, _ in stretches)
    out["bottleneckd_pci_link_info"] = [('interface="em0",device="0000:03:00.0",bus="pcie",speed="2.5 GT/s",'
                                         'width="x4",downtrained="%s"' % ("true" if down else "false"), 1)]
    out["bottleneckd_network_drops_total"] = [('rung="socket"', DROPS_PER_SECOND * t)]
    if run and host in run["hosts"] and run["start"] <= t < run["end"]:
        out["bottleneckd_run_active"] = [('run="%s"' % run["name"], 1)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", choices=["three", "fleet"], default="three")
    ap.add_argument("--start", type=int, required=True, help="Unix seconds of the first sample")
    ap.add_argument("--seconds", type=int, default=360)
    ap.add_argument("--step", type=int, default=5)
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--format", choices=["openmetrics", "vm"], default="openmetrics")
    ap.add_argument("--out", required=True)
    ap.add_argument("--truth", required=True)
    a = ap.parse_args()
    if a.scenario == "three":
        hosts, run = scenario_three(a.start)
    else:
        hosts, run = scenario_fleet(a.start, a.seconds, a.hosts, a.seed)
    times = list(range(a.start, a.start + a.seconds + 1, a.step))
    ms = a.format == "vm"

    def stamp(t):
        return str(t * 1000) if ms else str(t)

    with open(a.out, "w") as out:
        for fam, typ in SIMULATED:
            out.write("# TYPE %s %s\n" % (fam, typ))
            for h in sorted(hosts):
                series = {}  # labels -> [(t, v)], in time order
                for t in times:
                    got = host_samples(hosts[h], run, h, t).get(fam, [])
                    # The daemon exports nothing after a run and Prometheus
                    # marks the series stale; text cannot carry a staleness
                    # marker, so here the samples after the run read 0 (the
                    # report takes only 1 as active).
                    if fam == "bottleneckd_run_active" and run and h in run["hosts"] and t >= run["end"]:
                        got = [('run="%s"' % run["name"], 0)]
                    for labels, v in got:
                        series.setdefault(labels, []).append((t, v))
                base = 'instance="%s",job="bottleneckd"' % h
                for labels in sorted(series):
                    for t, v in series[labels]:
                        out.write("%s{%s%s} %s %s\n" % (fam, base, "," + labels if labels else "", number(v), stamp(t)))
        if not ms:
            out.write("# EOF\n")
    truth = {"start": a.start, "end": times[-1], "step": a.step, "run": run,
             "hosts": {h: [{"start": s0, "end": s1, "bound": b, "resource": r} for s0, s1, b, r in st]
                       for h, st in hosts.items()}}
    with open(a.truth, "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
