#!/usr/bin/env python3
"""Simulated bottleneckd hosts served live, for the fleet's remote_write path
(tests/integration/fleet_agent_test.sh). Each host answers
http://127.0.0.1:PORT/HOST/metrics with a real daemon's scrape (--template,
taken from `bottleneckd --once`) in which the families the fleet report
reads are replaced by fleet_data.py's simulated ones at the current time:
the scenario `three` shrunk by --scale from --start (the truth goes to
--truth, as fleet_data.py writes it). Stops itself after --seconds.
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_data  # noqa: E402


def strip_families(text, names):
    """The exposition less the families in `names` (HELP, TYPE and samples)."""
    out = []
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            name = line.split()[2]
        elif line and not line.startswith("#"):
            name = line.split("{")[0].split(" ")[0]
        else:
            name = None
        if name not in names:
            out.append(line)
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--template", required=True)
    ap.add_argument("--start", type=float, required=True)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--truth", required=True)
    a = ap.parse_args()
    hosts, run = fleet_data.scenario_three(int(a.start), a.scale)
    with open(a.truth, "w") as f:
        json.dump({"start": int(a.start), "run": run, "hosts": {
            h: [{"start": s0, "end": s1, "bound": b, "resource": r} for s0, s1, b, r in st]
            for h, st in hosts.items()}}, f, indent=1)
    names = {name for name, _ in fleet_data.SIMULATED}
    base = strip_families(open(a.template, encoding="utf-8").read(), names)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            host = self.path.strip("/").split("/")[0] + ":9858"
            if host not in hosts or not self.path.endswith("/metrics"):
                self.send_error(404)
                return
            lines = [base]
            for fam, typ in fleet_data.SIMULATED:
                got = fleet_data.host_samples(hosts[host], run, host, time.time()).get(fam)
                if got:
                    lines.append("# TYPE %s %s\n" % (fam, typ))
                    lines.extend("%s%s %s\n" % (fam, "{%s}" % l if l else "", fleet_data.number(v)) for l, v in got)
            body = "".join(lines).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Timer(a.seconds, srv.shutdown).start()
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
