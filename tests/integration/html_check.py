#!/usr/bin/env python3
"""Checks a DOM that headless Chromium dumped from bottleneckd's HTML report
against the JSON report of the same input (html_report_test.sh,
profile_test.sh).

usage: html_check.py report|pcap|profile|offcpu DOM.html REPORT.json
       html_check.py measure PAGE.html OUT.html
Prints one line per check ("ok: ..." or "FAIL: ...") and exits 1 on a failure.

`profile` checks a run's on-CPU profile section (`--report --run NAME`):
the flame graph was laid out with a size, and so was each frame's box, each
label fits its box, the top functions table lists the JSON's
profile.top_functions in its order, and each of them is a frame of the
graph. A DOM has no sizes, and the report has no script, so `measure`
first writes a copy of the page with one that, once the page is laid out,
writes each size into the DOM (data-rendered on the <svg> and each frame):
dump that copy's DOM. `offcpu` checks the run's off-CPU section the same
way: its flame graph as wide as the JSON's offcpu.microseconds, laid out,
each box sized, each label inside, the top waits table the JSON's
offcpu.top_waits in its order.
"""
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """The plots with their series, the verdict cards and the MLFRR line."""

    def __init__(self):
        super().__init__()
        self.plots = {}  # data-plot -> {"empty": bool, "series": {name: (points, total)}}
        self.plot = None
        self.verdicts = []  # data-label, data-resource of each p.verdict
        self.mlfrr = None
        self.text = []
        # section#profile and section#offcpu: each one's data attributes, its
        # svg.flame's, each frame's and its table's names (top functions, top
        # waits)
        self.graphs = {}
        self.section = None  # the graph section being read
        self.cell = None  # the text of the td.function being read

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "svg" and "plot" in cls:
            self.plot = {"empty": a.get("data-empty") == "1", "series": {}, "declared": int(a["data-series"]),
                         "emphasis": []}
            self.plots[a["data-plot"]] = self.plot
        elif tag == "g" and "series" in cls and self.plot is not None:
            self.plot["series"][a["data-series"]] = (int(a["data-points"]), float(a["data-total"]))
            self.plot.setdefault("pieces", {})[a["data-series"]] = int(a.get("data-pieces", -1))
            if a.get("data-emphasis") == "1":
                self.plot["emphasis"].append(a["data-series"])
        elif tag == "p" and "verdict" in cls:
            self.verdicts.append((a["data-label"], a["data-resource"]))
        elif tag == "p" and "mlfrr" in cls:
            self.mlfrr = a["data-mlfrr"]
        elif tag == "section" and a.get("id") in ("profile", "offcpu"):
            self.section = self.graphs[a["id"]] = {"attrs": a, "flame": None, "frames": [], "table": []}
        elif tag == "svg" and "flame" in cls and self.section is not None:
            self.section["flame"] = a
        elif tag == "g" and "frame" in cls and self.section is not None:
            self.section["frames"].append(a)
        elif tag == "td" and "function" in cls and self.section is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "svg":
            self.plot = None
        elif tag == "section":
            self.section = None
        elif tag == "td" and self.cell is not None:
            self.section["table"].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def points(dom, plot, series):
    return dom.plots.get(plot, {}).get("series", {}).get(series, (None, None))


RUNGS = ("nic", "backlog", "socket", "application")


def close(a, b):
    return abs(a - b) <= 1e-5 * max(1, abs(b))


def check_rungs(dom, plot, rows, what):
    """Each rung's series of `plot`: a point per row (run or window) whose JSON
    rung_drops_per_second has the rung, and their total."""
    for rung in RUNGS:
        values = [x["rung_drops_per_second"][rung] for x in rows if x["rung_drops_per_second"][rung] is not None]
        got = points(dom, plot, rung)
        check(got[0] == len(values) and got[1] is not None and close(got[1], sum(values)),
              "%s %s: %s points totalling %s drops/s (JSON: %d %s, %g)" % (plot, rung, got[0], got[1], len(values),
                                                                           what, sum(values)))


BUDGET_PARTS = ("steal", "hardirq", "softirq", "delivery", "threads", "tasks", "unexplained", "idle")


def check_budget(dom, r):
    """The timeline-budget plot: a stacked bar series per budget part, in
    their order, a point per window whose JSON cpu_budget has the plotted
    CPU, each part's total its ratios' sum in %, every bar reaching 100 %."""
    plot = "timeline-budget"
    if plot not in dom.plots:  # check_report said so
        return
    p = dom.plots[plot]
    check(tuple(p["series"]) == BUDGET_PARTS, "%s: series %s in the budget's order" % (plot, list(p["series"])))
    cpu = r["timeline_budget_cpu"]
    rows = [b for x in r["timeline"] for b in x["cpu_budget"] if b["cpu"] == cpu]
    check(cpu is not None or not rows, "%s: JSON names the plotted CPU %s" % (plot, cpu))
    for part in BUDGET_PARTS:
        total = sum(b[part + "_ratio"] * 100 for b in rows)
        got = points(dom, plot, part)
        check(got[0] == len(rows) and got[1] is not None and close(got[1], total),
              "%s %s: %s points totalling %s %% (JSON %s: %d windows, %g %%)" % (plot, part, got[0], got[1], cpu,
                                                                              len(rows), total))
    stacked = sum(points(dom, plot, part)[1] or 0 for part in BUDGET_PARTS)
    check(close(stacked, 100.0 * len(rows)), "%s: the parts stack to 100 %% in each of %d windows (%g)" %
          (plot, len(rows), stacked))
    check(not rows or not p["empty"], "%s drawn" % plot)


def check_report(dom, r):
    runs = r["runs"]
    for plot in ("sweep", "loss", "timeline-load", "timeline-cpu", "timeline-budget", "timeline-drops",
                 "timeline-interrupts", "timeline-bus"):
        check(plot in dom.plots, "plot %s present" % plot)
        if plot in dom.plots:
            p = dom.plots[plot]
            check(len(p["series"]) == p["declared"], "%s: %d series drawn of %d" % (plot, len(p["series"]),
                                                                                   p["declared"]))
    check(len(dom.plots["sweep"]["series"]) == 7, "sweep: 7 series")
    # The sweep plot draws the runs the MLFRR is over (JSON "sweep": the runs
    # themselves, or those that belong together, or one run's segments).
    swept = r["sweep"]
    for s in ("offered", "received", "application", "cpu", "accounting"):
        got = points(dom, "sweep", s)[0]
        check(got == len(swept), "sweep %s: %s points for %d swept runs" % (s, got, len(swept)))
    idle = sum(1 for x in swept if x["soaker_idle_ratio"] is not None)
    echoed = sum(1 for x in swept if x["echoed_per_second"] is not None)
    check(points(dom, "sweep", "soaker-idle")[0] == idle, "sweep soaker-idle: %d points" % idle)
    check(points(dom, "sweep", "echoed")[0] == echoed, "sweep echoed: %d points" % echoed)
    # Loss per rung under the sweep: stacked bars per run, nic + backlog + socket the run's drops/s.
    check(dom.plots["loss"]["declared"] == len(RUNGS), "loss: a series per rung")
    check_rungs(dom, "loss", swept, "runs")
    measured = [x for x in swept if all(x["rung_drops_per_second"][k] is not None for k in RUNGS[:3])]
    drops = sum(x["drops_per_second"] for x in measured)
    stacked = sum(x["rung_drops_per_second"][k] for x in measured for k in RUNGS[:3])
    check(close(stacked, drops), "loss: nic + backlog + socket %g drops/s = the runs' drops/s %g" % (stacked, drops))
    knee = [k for k in RUNGS if k in dom.plots["loss"]["emphasis"]]
    check(len(knee) <= 1, "loss: at most one rung emphasised (%s)" % knee)
    n = r["timeline_points"]
    # The timeline's lines stop where no window was kept for over three
    # times the median spacing of the windows (the JSON's t).
    ts = [x["t"] for x in r["timeline"]]
    steps = sorted(b - a for a, b in zip(ts, ts[1:]) if b > a)
    gaps = sum(1 for a, b in zip(ts, ts[1:]) if steps and b - a > 3 * steps[len(steps) // 2])
    want = 1 + gaps if ts else 0
    got = dom.plots["timeline-load"].get("pieces", {}).get("offered")
    check(got == want, "timeline-load offered: drawn in %s pieces for %d gaps without windows" % (got, gaps))
    # Drops per rung over time, against the JSON's windows.
    tl = r["timeline"]
    check(len(tl) == n, "timeline: %d JSON windows for %d points" % (len(tl), n))
    check(dom.plots["timeline-drops"]["declared"] == 1 + len(RUNGS), "timeline-drops: all rungs and a series per rung")
    check_rungs(dom, "timeline-drops", tl, "windows")
    total = sum(x["drops_per_second"] for x in tl)
    got = points(dom, "timeline-drops", "drops")
    check(got[0] == n and close(got[1], total), "timeline-drops drops: %s points totalling %s (JSON %g)" %
          (got[0], got[1], total))
    first = {}
    for x in tl:
        if x["first_losing_rung"] != "none":
            first[x["first_losing_rung"]] = first.get(x["first_losing_rung"], 0) + 1
    want = [max(sorted(first), key=lambda k: first[k])] if first else []
    check(dom.plots["timeline-drops"]["emphasis"] == want, "timeline-drops: first losing rung emphasised %s (JSON %s)" %
          (dom.plots["timeline-drops"]["emphasis"], want))
    for plot, s in (("timeline-load", "offered"), ("timeline-load", "received"), ("timeline-cpu", "cpu"),
                    ("timeline-drops", "drops"), ("timeline-interrupts", "interrupts")):
        got = points(dom, plot, s)[0]
        check(got == n, "%s %s: %s points for %d windows" % (plot, s, got, n))
    check(n == 0 or not dom.plots["timeline-cpu"]["empty"], "timeline-cpu drawn")
    check_budget(dom, r)
    want = ([(r["parent"]["verdict"]["label"], r["parent"]["verdict"]["resource"])] if r.get("parent") else []) + \
        [(x["verdict"]["label"], x["verdict"]["resource"]) for x in runs]
    check(dom.verdicts == want, "verdicts %s" % want)
    m = r["mlfrr_packets_per_second"]
    want = "" if m is None else "%.0f" % m
    check(dom.mlfrr == want, "MLFRR '%s'" % want)
    text = "".join(dom.text)
    if m is not None:
        check(("MLFRR: %s packets/s" % want) in text, "MLFRR line says %s packets/s" % want)
    for x in runs:
        check(x["name"] in text, "run %s named" % x["name"])


def check_pcap(dom, r):
    f = r["files"][0]
    for plot in ("pcap-rate", "pcap-turnaround", "pcap-sizes"):
        check(plot in dom.plots, "plot %s present" % plot)
    sec = f["seconds"]
    for s, key in (("applied", "requests"), ("echoed", "replies")):
        got = points(dom, "pcap-rate", s)
        total = sum(x[key] for x in sec)
        check(got == (len(sec), total), "pcap-rate %s: %s for %d seconds, %d %s" % (s, got, len(sec), total, key))
    t = f["turnaround_seconds"]["count"]
    got = points(dom, "pcap-turnaround", "pairs")[1]
    check(got == t, "turnaround: %s pairs in the bins, JSON %d" % (got, t))
    sizes = f["sizes"]
    got = points(dom, "pcap-sizes", "frames")
    want = (len(sizes), sum(x["frames"] for x in sizes))
    check(got == want, "sizes: %s, JSON %s" % (got, want))
    check(f["path"] in "".join(dom.text), "capture named")


# Run by Chromium in `measure`'s copy of a page, after layout: the rendered
# size of the flame graph and of each frame's box, "WIDTHxHEIGHT" in CSS
# pixels, and how far each label runs past its box's right edge.
MEASURE = """<script>
for (const svg of document.querySelectorAll("svg.flame")) {
  const b = svg.getBoundingClientRect();
  svg.setAttribute("data-rendered", b.width + "x" + b.height);
  for (const g of svg.querySelectorAll("g.frame")) {
    const r = g.querySelector("rect").getBoundingClientRect(), t = g.querySelector("text");
    g.setAttribute("data-rendered", r.width + "x" + r.height);
    if (t) g.setAttribute("data-label-overflow", t.getBoundingClientRect().right - r.right);
  }
}
</script>"""


def measure(page_path, out_path):
    page = open(page_path, encoding="utf-8").read()
    at = page.rfind("</body>")
    if at < 0:
        sys.exit("html_check.py measure: %s has no </body>" % page_path)
    open(out_path, "w", encoding="utf-8").write(page[:at] + MEASURE + page[at:])


def rendered(attrs):
    """(width, height) from a data-rendered attribute; (0, 0) when absent."""
    try:
        w, h = (attrs or {}).get("data-rendered", "").split("x")
        return float(w), float(h)
    except ValueError:
        return 0.0, 0.0


def check_graph(g, total, unit):
    """A graph section's flame graph: `total` wide, laid out, every frame's
    box sized, every label inside its box."""
    flame, frames = g["flame"], g["frames"]
    check(flame is not None, "the flame graph is there")
    if flame is None:
        return
    check(int(flame["data-samples"]) == total, "flame graph of %s %s (JSON %d)" % (flame["data-samples"], unit, total))
    w, h = rendered(flame)
    check(w > 0 and h > 0, "flame graph rendered %gx%g px" % (w, h))
    empty = [f["data-name"] for f in frames if min(rendered(f)) <= 0]
    check(bool(frames) and not empty, "%d frames, each rendered with a size (none: %s)" % (len(frames), empty[:5]))
    # A label may not run past its box (the renderer's character width
    # estimate against the font Chromium used); a pixel of rounding allowed.
    over = [(f["data-name"], f["data-label-overflow"]) for f in frames
            if float(f.get("data-label-overflow", "-1")) > 1]
    labelled = sum(1 for f in frames if "data-label-overflow" in f)
    check(not over, "%d labels inside their boxes (past them: %s)" % (labelled, over[:5]))


def check_profile(dom, r):
    prof = r["profile"]
    g = dom.graphs.get("profile")
    check(g is not None, "section#profile present")
    if g is None:
        return
    check(g["attrs"].get("data-run") == prof["run"], "profile of run '%s' (JSON '%s')" %
          (g["attrs"].get("data-run"), prof["run"]))
    check_graph(g, prof["samples"], "samples")
    want = [f["function"] for f in prof["top_functions"]]
    check(bool(want), "JSON names %d top functions" % len(want))
    check(set(g["table"]) == set(want), "top functions table %s = JSON's %s" % (g["table"], want))
    check(g["table"] == want, "in the JSON's order")
    names = {f["data-name"] for f in g["frames"]}
    missing = [f for f in want if f not in names]
    check(not missing, "each top function is a frame of the flame graph (not: %s)" % missing)


def check_offcpu(dom, r):
    off = r["offcpu"]
    g = dom.graphs.get("offcpu")
    check(g is not None, "section#offcpu present")
    if g is None:
        return
    check(g["attrs"].get("data-run") == off["run"] and int(g["attrs"]["data-microseconds"]) == off["microseconds"],
          "off-CPU stacks of run '%s', %s us (JSON '%s', %d us)" % (
              g["attrs"].get("data-run"), g["attrs"].get("data-microseconds"), off["run"], off["microseconds"]))
    check_graph(g, off["microseconds"], "us")
    want = [w["wait"] for w in off["top_waits"]]
    check(bool(want), "JSON names %d top waits" % len(want))
    check(g["table"] == want, "top waits table %s = JSON's %s, in its order" % (g["table"], want))


def main():
    if sys.argv[1] == "measure":
        measure(sys.argv[2], sys.argv[3])
        return
    kind, dom_path, json_path = sys.argv[1:4]
    dom = Dom()
    dom.feed(open(dom_path, encoding="utf-8").read())
    r = json.load(open(json_path))
    check(bool(dom.plots), "%d plots in the DOM" % len(dom.plots))
    {"report": check_report, "pcap": check_pcap, "profile": check_profile, "offcpu": check_offcpu}[kind](dom, r)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
