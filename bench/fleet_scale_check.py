#!/usr/bin/env python3
"""bench/fleet_scale.sh's checks: the shipped recording rules (what the fleet
dashboard reads) and the fleet report over 1000 simulated hosts, each answer
against the truth tests/integration/fleet_data.py injected.

  fleet_scale_check.py rules PROM_URL TRUTH
      At three instants, every recording rule's answer against the truth
      (which hosts are bound by what, with what resource; each host's bound
      share of the last hour; plateau, bus path, downtrained links, drops).
  fleet_scale_check.py report REPORT_JSON TRUTH
      The fleet report over the whole fleet: each bound host's label,
      resource and first bound step; limited first and longest.
Prints PASS/FAIL lines; exits 1 on any FAIL. Standard library only.
"""
import json
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/tests/integration")
import fleet_data  # noqa: E402

failed = 0
EVAL = 60  # bench/fleet_scale.sh's --eval-interval for the rules' backfill


def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    failed += not ok


def instant(url, query, t):
    q = urllib.parse.urlencode({"query": query, "time": t})
    with urllib.request.urlopen("%s/api/v1/query?%s" % (url, q), timeout=120) as r:
        d = json.load(r)
    return {tuple(sorted((k, v) for k, v in s["metric"].items() if k != "__name__")): float(s["value"][1])
            for s in d["data"]["result"]}


def stretches(truth):
    return {h: [(s["start"], s["end"], s["bound"], s["resource"]) for s in st] for h, st in truth["hosts"].items()}


def sample_at(truth, t):
    """The truth's sample a query at t sees: the last one at or before t."""
    step = truth["step"]
    return truth["start"] + (int(t) - truth["start"]) // step * step


def rules(url, truth):
    hosts = stretches(truth)
    step = truth["step"]
    # Three instants where something is bound: the middles of the three
    # longest stretches, half a step past a sample.
    longest = sorted((st[0] for st in hosts.values() if st), key=lambda s: s[0] - s[1])[:3]
    instants = [sample_at(truth, (a + b) // 2) + step // 2 for a, b, _, _ in longest] or [truth["end"] - step // 2]
    for t in instants:
        # A recorded series read at t is the rule's value at its last
        # evaluation, every EVAL s from the start (promtool's backfill), over
        # the samples of (e - range, e]: a backfilled evaluation's range took
        # the sample at its end and not the one at its start (found by this
        # check: 113 of 120 samples where [e - 1h, e] would hold 121).
        e = truth["start"] + (int(t) - truth["start"]) // EVAL * EVAL
        at = sample_at(truth, e)
        held = {h: fleet_data.held(st, at) for h, st in hosts.items()}
        counts = {}
        for label, _ in held.values():
            counts[label] = counts.get(label, 0) + 1
        got = {dict(k)["bound"]: v for k, v in instant(url, "bound:bottleneckd_verdict:count", t).items()}
        check(got == {k: float(v) for k, v in counts.items()},
              "t=%d: bound:bottleneckd_verdict:count %s (truth %s)" % (t, got, counts))
        info = instant(url, "instance_bound_resource:bottleneckd_verdict_info:max", t)
        got = {dict(k)["instance"]: (dict(k)["bound"], dict(k).get("resource", "")) for k in info}
        check(got == held, "t=%d: instance_bound_resource:bottleneckd_verdict_info:max: each of %d hosts' label and "
              "resource (%d differ)" % (t, len(held), sum(got.get(h) != v for h, v in held.items())))
        # Share of the last hour bound: the samples in (t - 1h, t].
        share = instant(url, "instance:bottleneckd_verdict_bound:avg_over_time1h", t)
        bad = 0
        for k, v in share.items():
            h = dict(k)["instance"]
            samples = [s for s in range(at - 3600 + step, at + 1, step) if s >= truth["start"]]
            want = sum(fleet_data.held(hosts[h], s)[0] != "none" for s in samples) / len(samples)
            if abs(v - want) > 1e-9:
                bad += 1
                if bad <= 3:
                    print("  %s: %.6f, truth %.6f (%d samples from %d to %d)" % (h, v, want, len(samples), samples[0], samples[-1]))
        check(len(share) == len(hosts) and bad == 0,
              "t=%d: instance:bottleneckd_verdict_bound:avg_over_time1h: %d hosts, %d off the truth's share" % (
                  t, len(share), bad))
        for rule, want_of in (
                ("instance:bottleneckd_utilisation_plateau:avg_over_time1m",
                 lambda h: {60 // step: 1.0, 0: 0.0}.get(sum(fleet_data.held(hosts[h], x)[0] == "interrupt"
                                                             for x in range(at - 60 + step, at + 1, step)))),
                ("instance:bottleneckd_verdict_confidence:avg_over_time5m",
                 lambda h: sum(0.6 if fleet_data.held(hosts[h], x)[0] != "none" else 0.2
                               for x in range(at - 300 + step, at + 1, step)) / (300 // step)),
                ("instance:bottleneckd_bus_path_utilisation:max",
                 lambda h: 0.97 if held[h][0] == "bus" else 0.1),
                ("instance:bottleneckd_pci_links_downtrained:count",
                 lambda h: 1.0 if any(b == "bus" for _, _, b, _ in hosts[h]) else 0.0)):
            got = {dict(k)["instance"]: v for k, v in instant(url, rule, t).items()}
            wants = {h: want_of(h) for h in hosts}
            bad = [h for h, w in wants.items() if w is not None and abs(got.get(h, -1) - w) > 1e-9]
            check(not bad and len(got) == len(hosts), "t=%d: %s: %d hosts, %d off the truth" % (t, rule, len(got), len(bad)))
        drops = instant(url, "instance_rung:bottleneckd_network_drops:rate1m", t)
        check(len(drops) == len(hosts) and all(abs(v - fleet_data.DROPS_PER_SECOND) < 1e-9 for v in drops.values()),
              "t=%d: instance_rung:bottleneckd_network_drops:rate1m: %d hosts at %g/s" % (
                  t, len(drops), fleet_data.DROPS_PER_SECOND))


def report(path, truth):
    r = json.load(open(path))
    hosts = stretches(truth)
    inst = {i["instance"]: i for i in r["instances"]}
    step = r["step_seconds"]
    check(len(inst) == len(hosts), "report: %d instances (truth %d)" % (len(inst), len(hosts)))
    bad = []
    for h, st in hosts.items():
        i = inst.get(h)
        if i is None:
            bad.append(h)
            continue
        if not st:
            if i["bound"] != "none":
                bad.append(h)
            continue
        s0, s1, b, res = st[0]
        if i["bound"] != b or i["resource"] != res or abs(i["first_bound"] - s0) > step + truth["step"]:
            bad.append(h)
    bound = sum(1 for st in hosts.values() if st)
    check(not bad, "report: every host's label, resource and first bound step (%d bound, %d differ: %s)" % (
        bound, len(bad), bad[:5]))
    first = min((st[0][0], h) for h, st in hosts.items() if st)
    check(r["limited_first"] == first[1], "report: limited first %s (truth %s)" % (r["limited_first"], first[1]))
    longest = max(st[0][1] - st[0][0] for st in hosts.values() if st)
    got = hosts.get(r["limited_longest"], [])
    check(bool(got) and got[0][1] - got[0][0] == longest,
          "report: limited longest %s, bound %d s (truth: the longest is %d s)" % (
              r["limited_longest"], got[0][1] - got[0][0] if got else 0, longest))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "rules":
        rules(sys.argv[2], json.load(open(sys.argv[3])))
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        report(sys.argv[2], json.load(open(sys.argv[3])))
    else:
        sys.exit(__doc__)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
