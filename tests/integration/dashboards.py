#!/usr/bin/env python3
"""The Grafana dashboards of etc/grafana/, checked without Grafana.

  dashboards.py check SOURCE_DIR FILE...
      Structure: schemaVersion, the `datasource` (prometheus) and `instance`
      variables, no datasource UID literal anywhere, unique panel ids, gridPos
      rectangles inside 24 columns that do not overlap, every panel with a
      unit and a description naming an existing doc section as
      "/usr/share/doc/bottleneckd/FILE.md § SECTION" (where the package
      installs docs/FILE.md; SECTION a heading or its start up to a space or
      colon; "; " between several), no description anywhere
      with a link Grafana cannot follow (a markdown link, a relative path
      such as ../ or docs/FILE.md, a #anchor), every
      target with the ${datasource} reference and an expression whose
      variables are defined and whose metric names exist (docs/metrics.md,
      etc/prometheus/bottleneckd-recording.yml). Prints one line per problem;
      exit 1 if any.

  dashboards.py query PROM_URL START END FILE...
      Every target of every panel, its variables substituted as Grafana would
      ($instance: each value of the variable's own query, $cpu: All,
      $__rate_interval 10s for a 1 s scrape interval, $__interval the step,
      $__range the span), sent to /api/v1/query_range over [START, END].
      Prints a JSON report: per panel and target, the instances whose query
      returned series with numbers, and the query's wall time in seconds.
      DASH_STEP and DASH_RATE_INTERVAL (environment) set the step and
      $__rate_interval for a longer span or scrape interval.

Standard library only (tests/integration/lib.sh's rule).
"""
import json
import math
import os
import re
import sys
import time
import urllib.parse
import urllib.request

DS_REF = {"type": "prometheus", "uid": "${datasource}"}
BUILTINS = {"__rate_interval", "__interval", "__interval_ms", "__range", "__range_s", "__range_ms"}
# For a 1 s scrape interval; bench/fleet_scale.sh sets both for its 60 s one
# (and a 24 h span, where 2 s steps would pass the API's 11 000 points).
RATE_INTERVAL = os.environ.get("DASH_RATE_INTERVAL", "10s")
STEP = int(os.environ.get("DASH_STEP", "2"))


DOC_DIR = "/usr/share/doc/bottleneckd/"
# What Grafana shows as text but cannot open: markdown links, paths relative
# to the repository, anchors.
RELATIVE_LINK = re.compile(r"\]\(|(?<![\w/.])\.\.?/|(?<![\w/])docs/[\w.-]+\.md|\.md#")


def doc_headings(src, doc):
    """The heading texts of docs/DOC, None when it does not exist."""
    path = os.path.join(src, "docs", doc)
    if not os.path.isfile(path):
        return None
    return [m.group(1).strip() for m in re.finditer(r"^#+ (.*)$", open(path, encoding="utf-8").read(), re.M)]


def doc_refs(desc):
    """(FILE.md, SECTION) of each "/usr/share/doc/bottleneckd/FILE.md § SECTION" in desc."""
    refs = []
    for chunk in desc.split(DOC_DIR)[1:]:
        m = re.match(r"([\w.-]+\.md) § (.*?)(?:; |$)", chunk.split("; ")[0] + "; ")
        refs.append((m.group(1), m.group(2).rstrip(".)").strip()) if m else (chunk[:30], None))
    return refs


def walk_descriptions(node, where, problems):
    """Every "description" in the JSON (dashboard, panels, variables) without a relative link."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "description" and isinstance(v, str):
                m = RELATIVE_LINK.search(v)
                if m:
                    problems.append("%s: description has a link Grafana cannot follow: ...%s..." %
                                    (where, v[max(0, m.start() - 20):m.end() + 20]))
            else:
                walk_descriptions(v, where, problems)
    elif isinstance(node, list):
        for v in node:
            walk_descriptions(v, where, problems)


def known_metrics(src):
    names = set(re.findall(r"`(bottleneckd_[a-z0-9_]+)`", open(os.path.join(src, "docs/metrics.md")).read()))
    rules = os.path.join(src, "etc/prometheus/bottleneckd-recording.yml")
    recorded = set(re.findall(r"^\s*- record:\s*(\S+)", open(rules).read(), re.M)) if os.path.isfile(rules) else set()
    return names, recorded


def all_panels(d):
    for p in d.get("panels", []):
        yield p
        for q in p.get("panels", []):  # collapsed rows keep their panels inside
            yield q


def walk_datasources(node, where, problems):
    """Every "datasource" in the JSON must be the ${datasource} reference
    (the built-in annotation query's Grafana source excepted)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "datasource":
                if isinstance(v, dict) and v.get("type") == "grafana" and v.get("uid") == "-- Grafana --":
                    pass
                elif v != DS_REF:
                    problems.append("%s: datasource %s is not %s" % (where, json.dumps(v), json.dumps(DS_REF)))
            else:
                walk_datasources(v, where, problems)
    elif isinstance(node, list):
        for v in node:
            walk_datasources(v, where, problems)


# Gauges that are 0 or 1 (docs/metrics.md): never a share of anything.
FLAG_METRICS = ("bottleneckd_utilisation_plateau", "bottleneckd_self_limit_exceeded",
                "bottleneckd_collector_success", "bottleneckd_collector_degraded")


def check(src, path):
    problems = []
    name = os.path.relpath(path, src) if path.startswith(src) else path
    try:
        d = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        return ["%s: not readable JSON: %s" % (name, e)]
    metrics, recorded = known_metrics(src)
    sv = d.get("schemaVersion")
    if not isinstance(sv, int) or sv < 36:
        problems.append("%s: schemaVersion %r missing or older than 36 (Grafana 9.x)" % (name, sv))
    for key in ("uid", "title"):
        if not d.get(key):
            problems.append("%s: no dashboard %s" % (name, key))
    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = variables.get("datasource")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        problems.append("%s: templating has no `datasource` variable of type datasource, query prometheus" % name)
    inst = variables.get("instance")
    if not inst or inst.get("type") != "query" or "instance" not in json.dumps(inst.get("query")):
        problems.append("%s: templating has no `instance` query variable over the instance label" % name)
    for vname, v in variables.items():
        if vname != "datasource" and v.get("type") == "query" and v.get("datasource") != DS_REF:
            problems.append("%s: variable %s: datasource is not ${datasource}" % (name, vname))
    # UID literals anywhere: a "uid" key inside a datasource object, or a panel
    # or target whose datasource is a plain string (a data source name).
    walk_datasources(d.get("panels", []), name + " panels", problems)
    walk_datasources(d.get("templating", {}), name + " templating", problems)
    walk_datasources(d.get("annotations", {}), name + " annotations", problems)
    walk_descriptions(d, name, problems)

    ids = {}
    # A collapsed row's panels are laid out among themselves (Grafana places
    # them under the row when it opens), the others on the dashboard.
    layouts = {}
    for p in d.get("panels", []):
        if p.get("type") == "row" and p.get("repeat") and p["repeat"] not in variables:
            problems.append("%s: row %r repeats over undefined variable $%s" % (name, p.get("title"), p["repeat"]))
        # A panel repeated per value of a variable pushes everything below it
        # down by one panel per value (128 on a 128-CPU host): it belongs in
        # a row, collapsed or last, never among the dashboard's panels.
        if p.get("type") == "row" and p.get("panels") and not p.get("collapsed"):
            problems.append("%s: row %r holds panels but is not collapsed (an open row's panels follow it)" %
                            (name, p.get("title")))
        if p.get("type") != "row" and p.get("repeat"):
            problems.append("%s: panel %r repeats per $%s outside a row: put it in a collapsed row" %
                            (name, p.get("title"), p["repeat"]))
    for p in all_panels(d):
        title = p.get("title") or "(untitled)"
        where = "%s: panel %r" % (name, title)
        inner = next((r.get("title") for r in d.get("panels", []) if any(q is p for q in r.get("panels", []))), None)
        rects = layouts.setdefault(inner, [])
        pid = p.get("id")
        if not isinstance(pid, int):
            problems.append("%s: id %r is not an integer" % (where, pid))
        elif pid in ids:
            problems.append("%s: id %d also used by panel %r" % (where, pid, ids[pid]))
        else:
            ids[pid] = title
        g = p.get("gridPos") or {}
        if not all(isinstance(g.get(k), int) for k in "xywh"):
            problems.append("%s: gridPos %r needs integer x, y, w, h" % (where, g))
        else:
            if g["w"] <= 0 or g["h"] <= 0 or g["x"] < 0 or g["y"] < 0 or g["x"] + g["w"] > 24:
                problems.append("%s: gridPos %r does not fit in 24 columns" % (where, g))
            for other, og in rects:
                if (g["x"] < og["x"] + og["w"] and og["x"] < g["x"] + g["w"] and
                        g["y"] < og["y"] + og["h"] and og["y"] < g["y"] + g["h"]):
                    problems.append("%s: gridPos %r overlaps panel %r at %r" % (where, g, other, og))
            rects.append((title, g))
        if p.get("type") == "row":
            continue
        desc = p.get("description") or ""
        if len(desc) < 40:
            problems.append("%s: no description saying what the number is" % where)
        refs = doc_refs(desc)
        if not refs:
            problems.append("%s: description names no doc section (%sFILE.md § SECTION)" % (where, DOC_DIR))
        for doc, section in refs:
            headings = doc_headings(src, doc) if section is not None else None
            if headings is None:
                problems.append("%s: description names %s%s, which is no docs/ file" % (where, DOC_DIR, doc))
            elif not any(h == section or re.match(re.escape(section) + r"[ :]", h) for h in headings):
                problems.append("%s: description names %s § %s: no such section" % (where, doc, section))
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
        if not isinstance(unit, str) or not unit.strip():
            problems.append("%s: fieldConfig.defaults.unit is not set" % where)
        if p.get("datasource") != DS_REF:
            problems.append("%s: panel datasource is not ${datasource}" % where)
        if p.get("repeat") and p["repeat"] not in variables:
            problems.append("%s: repeats over undefined variable $%s" % (where, p["repeat"]))
        targets = p.get("targets") or []
        if not targets:
            problems.append("%s: no targets" % where)
        refs = set()
        for t in targets:
            tw = "%s target %s" % (where, t.get("refId"))
            if t.get("refId") in refs or not t.get("refId"):
                problems.append("%s: refId missing or repeated" % tw)
            refs.add(t.get("refId"))
            if t.get("datasource") != DS_REF:
                problems.append("%s: datasource %s is not ${datasource}" % (tw, json.dumps(t.get("datasource"))))
            expr = t.get("expr") or ""
            if not expr.strip():
                problems.append("%s: empty expr" % tw)
            for v in re.findall(r"\$\{?(\w+)", expr):
                if v not in variables and v not in BUILTINS:
                    problems.append("%s: uses undefined variable $%s" % (tw, v))
            for m in re.findall(r"\b([a-z_]+:bottleneckd_[a-z0-9_]+:[a-z0-9_]+|bottleneckd_[a-z0-9_]+)\b", expr):
                if ":" in m and m not in recorded:
                    problems.append("%s: %s is no rule of etc/prometheus/bottleneckd-recording.yml" % (tw, m))
                elif ":" not in m and m not in metrics:
                    problems.append("%s: metric %s is not in docs/metrics.md" % (tw, m))
            # The dashboard linter's rules (github.com/grafana/dashboard-linter):
            # target-rate-interval-rule: rate() and irate() over
            # $__rate_interval (at least four scrapes whatever the zoom),
            # increase() over it or the panel's $__range;
            for fn, rng in re.findall(r"\b(rate|irate|increase)\((?:[^()\[]|\([^()]*\))*\[([^\]]+)\]", expr):
                if rng != "$__rate_interval" and not (fn == "increase" and rng == "$__range"):
                    problems.append("%s: %s() over [%s]: use [$__rate_interval]" % (tw, fn, rng))
            # target-counter-agg-rule: a counter is read through rate(),
            # irate() or increase(), never as its raw running total.
            for m in re.finditer(r"\b(bottleneckd_[a-z0-9_]+_total)\b", expr):
                if not re.search(r"\b(rate|irate|increase)\(\s*$", expr[:m.start()]):
                    problems.append("%s: counter %s is not inside rate(), irate() or increase()" % (tw, m.group(1)))
            # A 0/1 flag on a panel whose axis is a percentage reads as 0 % or
            # 100 % of something: it needs its own unit (an override by its
            # legend or refId).
            bare = re.fullmatch(r"\s*(bottleneckd_[a-z0-9_]+)(\{[^}]*\})?\s*", expr)
            if bare and bare.group(1) in FLAG_METRICS and unit == "percentunit":
                names = {t.get("legendFormat"), t.get("refId")}
                own_unit = any(o.get("matcher", {}).get("options") in names and
                               any(pr.get("id") == "unit" for pr in o.get("properties", []))
                               for o in p.get("fieldConfig", {}).get("overrides", []))
                if not own_unit:
                    problems.append("%s: %s is a 0/1 flag drawn on the panel's percent axis: give it its own unit "
                                    "in an override" % (tw, bare.group(1)))
    if not ids:
        problems.append("%s: no panels" % name)
    return problems


# --- queries ------------------------------------------------------------------------------

def prom_get(url, path, params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen("%s%s?%s" % (url, path, q), timeout=120) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError("%s %s: %s" % (path, params, d))
    return d["data"]


def label_values(url, query, start, end, regex=""):
    """Grafana's label_values(METRIC{...}, LABEL) variable query, or
    query_result(EXPR) with the variable's /regex/ (its first group) applied to
    each result series as Grafana writes it: name{label="value", ...}."""
    m = re.fullmatch(r"\s*query_result\((.*)\)\s*", query)
    if m:
        data = prom_get(url, "/api/v1/query", {"query": m.group(1), "time": end})
        pattern = re.compile(regex.strip("/")) if regex else None
        out = set()
        for s in data["result"]:
            labels = s["metric"]
            text = "%s{%s} %s" % (labels.get("__name__", ""),
                                  ", ".join('%s="%s"' % (k, v) for k, v in sorted(labels.items()) if k != "__name__"),
                                  s["value"][1])
            if pattern is None:
                out.add(text)
            else:
                g = pattern.search(text)
                if g:
                    out.add(g.group(1) if g.groups() else g.group(0))
        return sorted(out)
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", query)
    if not m:
        raise RuntimeError("unsupported variable query %r" % query)
    series = prom_get(url, "/api/v1/series", {"match[]": m.group(1), "start": start, "end": end})
    return sorted({s[m.group(2)] for s in series if m.group(2) in s})


def regex_escape(v):
    # Grafana's Prometheus regex escaping, written for a PromQL string literal.
    return re.sub(r"([\\^$*+?.()|{}\[\]])", r"\\\\\1", v)


def substitute(expr, values, span):
    out = expr
    builtins = {"__rate_interval": RATE_INTERVAL, "__interval": "%ds" % STEP, "__interval_ms": str(STEP * 1000),
                "__range": "%ds" % span, "__range_s": str(span), "__range_ms": str(span * 1000)}
    for k, v in list(values.items()) + list(builtins.items()):
        out = out.replace("${%s}" % k, v)
        out = re.sub(r"\$%s\b" % re.escape(k), lambda _m: v, out)
    return out


def query(url, start, end, paths):
    span = int(end - start)
    report = []
    for path in paths:
        d = json.load(open(path, encoding="utf-8"))
        variables = {v["name"]: v for v in d["templating"]["list"]}
        inst = variables["instance"]
        q = inst["query"]["query"] if isinstance(inst["query"], dict) else inst["query"]
        instances = label_values(url, q, start, end)
        if inst.get("includeAll"):
            choices = [("All", inst.get("allValue", ".*"))]
        else:
            choices = [(i, regex_escape(i)) for i in instances]
        for label, value in choices:
            values = {"instance": value}
            for vname, v in variables.items():
                if vname in ("datasource", "instance"):
                    continue
                vq = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
                opts = label_values(url, substitute(vq, values, span), start, end, v.get("regex", ""))
                values[vname] = v.get("allValue", ".*") if v.get("includeAll") else (regex_escape(opts[0]) if opts else "")
            for p in all_panels(d):
                for t in p.get("targets", []):
                    expr = substitute(t["expr"], values, span)
                    began = time.monotonic()
                    data = prom_get(url, "/api/v1/query_range",
                                    {"query": expr, "start": start, "end": end, "step": STEP})
                    seconds = time.monotonic() - began
                    series = data["result"]
                    numbers = sum(1 for s in series for _, v in s.get("values", []) if not math.isnan(float(v)))
                    report.append({"dashboard": os.path.basename(path), "panel": p["title"], "ref": t["refId"],
                                   "instance": label, "instances": instances, "expr": expr,
                                   "series": len(series), "numbers": numbers, "seconds": round(seconds, 4)})
    json.dump(report, sys.stdout, indent=1)
    print()


def main(argv):
    if len(argv) >= 3 and argv[0] == "check":
        src = os.path.abspath(argv[1])
        problems = []
        for f in argv[2:]:
            problems += check(src, os.path.abspath(f))
        for p in problems:
            print(p)
        return 1 if problems else 0
    if len(argv) >= 5 and argv[0] == "query":
        query(argv[1], float(argv[2]), float(argv[3]), argv[4:])
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
