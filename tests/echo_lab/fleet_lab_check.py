#!/usr/bin/env python3
"""Assertions of the fleet lab (tests/echo_lab/fleet_lab_test.sh): which host
limited a run, from the fleet report (`bottleneckd --report --prometheus.url
... --run NAME --format json`), against the ground truth the test read
itself: the generator's sent and echoed counts against the rate it was asked
for, and the generator's and the echo thread's running share (schedstat).

usage: fleet_lab_check.py NAME EXPECT RATE GEN.out THREADS REPORT.json
  EXPECT: gen (the generator saturates) or box (the echo does)
  THREADS: "T0 T1 GEN_NS0 GEN_NS1 ECHO_NS0 ECHO_NS1" (seconds, run nanoseconds)
"""
import json
import sys

from lab_check import check, figure, load_gen
import lab_check

HOSTS = ("box", "gen", "bystander")
# A host not bound in the run may still read a bound label for a step or two
# of the span (a window mid-change); more than this share is an answer.
NOT_BOUND_SHARE_MAX = 0.10


def truth(name, expect, rate, gen_path, threads_path):
    """The ground truth of the run: the saturated host is EXPECT."""
    steps = load_gen(gen_path)
    ok = len(steps) == 1 and steps[0]["seconds"] > 0
    check(ok, "%s: the generator reported its step" % name)
    if not ok:
        return
    step = steps[0]
    sent, echoed = step["sent"] / step["seconds"], step["echoed"] / step["seconds"]
    with open(threads_path) as f:
        t0, t1, g0, g1, e0, e1 = (float(x) for x in f.read().split())
    gen_running = (g1 - g0) / 1e9 / (t1 - t0)
    echo_running = (e1 - e0) / 1e9 / (t1 - t0)
    figure(name + " generator", "asked %.0f/s sent %.0f/s echoed %.0f/s" % (rate, sent, echoed))
    figure(name + " running", "generator %.1f %% echo %.1f %% (schedstat)" % (gen_running * 100, echo_running * 100))
    if expect == "gen":
        check(gen_running >= 0.9, "%s: the generator's thread ran %.1f %% of its CPU (at least 90 %%: saturated)" % (
            name, gen_running * 100))
        check(sent <= 0.8 * rate, "%s: the generator sent %.0f/s of the %.0f/s asked (at most 80 %%: it could not "
              "keep up)" % (name, sent, rate))
        check(echoed >= 0.98 * sent, "%s: the echo returned %.0f/s of %.0f/s sent (at least 98 %%: the box kept up)" % (
            name, echoed, sent))
    else:
        check(sent >= 0.95 * rate, "%s: the generator sent %.0f/s of the %.0f/s asked (at least 95 %%: it kept up)" % (
            name, sent, rate))
        check(echoed <= 0.9 * sent, "%s: the echo returned %.0f/s of %.0f/s sent (at most 90 %%: the box could not "
              "keep up)" % (name, echoed, sent))
        check(echo_running >= 0.9, "%s: the echo thread ran %.1f %% of its CPU (at least 90 %%: saturated)" % (
            name, echo_running * 100))


def report(name, expect, report_path):
    with open(report_path, encoding="utf-8") as f:
        r = json.load(f)
    by_host = {i["instance"]: i for i in r["instances"]}
    for host in HOSTS:
        i = by_host.get(host)
        figure("%s report %s" % (name, host), "not in the report" if i is None else
               "bound %s [%s] share %.2f coverage %.2f in_run %s" % (i["bound"], i["resource"], i["bound_share"],
                                                                     i["coverage"], i.get("in_run")))
    check(sorted(h for h, i in by_host.items() if i.get("in_run")) == sorted(HOSTS),
          "%s: the report finds all three hosts in the run (%s)" % (name, ", ".join(sorted(by_host))))
    check(r["limited_first"] == expect and r["limited_longest"] == expect,
          "%s: limited first %s, longest %s (the saturated host: %s)" % (
              name, r["limited_first"], r["limited_longest"], expect))
    i = by_host.get(expect, {})
    check(i.get("bound") == "cpu" and i.get("bound_share", 0) >= 0.5,
          "%s: %s bound by cpu [%s] for %.0f %% of the run's span (at least half: the load filled %s)" % (
              name, expect, i.get("resource"), i.get("bound_share", 0) * 100, "most of it"))
    for host in HOSTS:
        if host == expect or host not in by_host:
            continue
        o = by_host[host]
        share = o["bound_share"] if o["bound"] != "none" else 0
        check(share <= NOT_BOUND_SHARE_MAX, "%s: %s not bound (%s for %.0f %% of the span, at most %.0f %%)" % (
            name, host, o["bound"], share * 100, NOT_BOUND_SHARE_MAX * 100))


if __name__ == "__main__":
    if len(sys.argv) != 7 or sys.argv[2] not in ("gen", "box"):
        sys.exit(__doc__)
    name, expect, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
    truth(name, expect, rate, sys.argv[4], sys.argv[5])
    report(name, expect, sys.argv[6])
    sys.exit(1 if lab_check.failed else 0)
