#!/usr/bin/env python3
"""The README's walkthrough, run as a user runs it (issue 47).

  readme_walkthrough.py BOTTLENECKD SOURCE_DIR WORK_DIR [--no-quick-start]

Reads the two fenced blocks under README.md's "## Quick start" and
"## Using it" and walks every line, in order, from SOURCE_DIR:

- each line has an entry in WALK below: the commands that run it here, or the
  reason it cannot. A README line without an entry, or an entry whose line is
  gone from the README, fails: the walkthrough follows the README, not a copy.
- what a line runs is the line itself, with only these changes, each said in
  the entry: `bottleneckd` is the binary under test; a daemon gets a loopback
  port the kernel picks (`--web.listen-address=127.0.0.1:0`) and a private
  state directory and control socket (WORK_DIR/state), as run, report and
  calibrate do; placeholders (N, NAME, CMD ARGS, FILE) get values, /tmp paths
  become WORK_DIR's; `record --duration 30s` records 3 s.
- "exit0" steps run bounded and must exit 0 (and print what the entry
  expects); "daemon" steps must log their listening address, answer
  /metrics with bottleneckd's series, and exit 0 on SIGTERM.

--no-quick-start leaves out `./scripts/run.sh` (it builds build/release:
about 150 s on 2 cores); the entry then fails rather than passing unrun.
Then every sqlite3 query of docs/run-store.md runs against the run store the
walk made. Prints PASS/FAIL/NOT RUN lines and exits 1 on any FAIL.
"""
import os
import re
import shlex
import signal
import struct
import subprocess
import sys
import time
import urllib.request

# README line (its comment dropped, spaces squeezed) -> steps. A step is
# ("exit0", argv, expect) with `expect` a string the output must hold ("" for
# any), ("daemon", argv, timeout_s), or ("reason", text) for a line that
# cannot run here. In argv: {bin} the binary, {work} WORK_DIR, {state}
# WORK_DIR/state, {sock} the control socket there, {pcap} a capture written
# by the walk.
DAEMON_FLAGS = ["--web.listen-address=127.0.0.1:0", "--path.state={state}", "--control.socket={sock}"]
STORE_FLAGS = ["--path.state={state}", "--control.socket={sock}"]
WALK = {
    # Quick start
    "./scripts/run.sh": [("daemon", ["./scripts/run.sh"] + DAEMON_FLAGS, 900)],
    "./scripts/test.sh": [("reason", "the suite this walk is part of is that command's run (.ci/run calls it)")],
    # Using it
    "bottleneckd --config.file=etc/bottleneckd.yaml": [
        ("daemon", ["{bin}", "--config.file=etc/bottleneckd.yaml"] + DAEMON_FLAGS, 60)],
    "bottleneckd --config.file=etc/bottleneckd.yaml --config.check": [
        ("exit0", ["{bin}", "--config.file=etc/bottleneckd.yaml", "--config.check"], "")],
    "bottleneckd --once": [("exit0", ["{bin}", "--once"], "# TYPE bottleneckd_")],
    "bottleneckd --soaker": [("daemon", ["{bin}", "--soaker"] + DAEMON_FLAGS, 60)],
    "bottleneckd calibrate": [("exit0", ["{bin}", "calibrate", "--path.state={state}"], "soaker-calibration")],
    "bottleneckd --path.procfs=tests/fixtures/seed-box/proc --path.sysfs=tests/fixtures/seed-box/sys "
    "--path.ethtool=tests/fixtures/seed-box/ethtool --once": [
        ("exit0", ["{bin}", "--path.procfs=tests/fixtures/seed-box/proc", "--path.sysfs=tests/fixtures/seed-box/sys",
                   "--path.ethtool=tests/fixtures/seed-box/ethtool", "--once"], "# TYPE bottleneckd_")],
    "bottleneckd record --out /tmp/rec --duration 30s": [
        ("exit0", ["{bin}", "record", "--out", "{work}/rec", "--duration", "3s"], "")],
    "bottleneckd --replay /tmp/rec": [("exit0", ["{bin}", "--replay", "{work}/rec"], "as recorded")],
    "bottleneckd --report --replay /tmp/rec [--format json]": [
        ("exit0", ["{bin}", "--report", "--replay", "{work}/rec"], ""),
        ("exit0", ["{bin}", "--report", "--replay", "{work}/rec", "--format", "json"], "{")],
    "bottleneckd run [--name N] -- CMD ARGS...": [
        ("exit0", ["{bin}", "run", "--name", "walk"] + STORE_FLAGS + ["--", "sleep", "2"], "walk")],
    "bottleneckd --report [--run NAME] [--last N]": [
        ("exit0", ["{bin}", "--report"] + STORE_FLAGS, "walk"),
        ("exit0", ["{bin}", "--report", "--run", "walk"] + STORE_FLAGS, "walk"),
        ("exit0", ["{bin}", "--report", "--last", "1"] + STORE_FLAGS, "walk")],
    "bottleneckd report --run NAME": [("exit0", ["{bin}", "report", "--run", "walk"] + STORE_FLAGS, "walk")],
    "bottleneckd run --join NAME / --leave NAME": [
        ("daemon-around", ["{bin}"] + DAEMON_FLAGS, [
            ["{bin}", "run", "--join", "walk-joined"] + STORE_FLAGS,
            ["{bin}", "run", "--leave", "walk-joined"] + STORE_FLAGS])],
    "bottleneckd --report --prometheus.url URL [--run NAME]": [
        ("reason", "needs a Prometheus that has scraped daemons for a while: "
                   "tests/integration/fleet_report_test.sh walks it against Prometheus and VictoriaMetrics")],
    "bottleneckd pcap FILE... [--format json]": [
        ("exit0", ["{bin}", "pcap", "{pcap}"], "echo"),
        ("exit0", ["{bin}", "pcap", "{pcap}", "--format", "json"], "{")],
    "python3 lab/simulate.py seed-sweep /tmp/seed": [
        ("exit0", ["python3", "lab/simulate.py", "seed-sweep", "{work}/seed"], "")],
    "bottleneckd --help": [("exit0", ["{bin}", "--help"], "Usage: bottleneckd")],
    "man -l build/release/bottleneckd.8": [("exit0", ["man", "-l", "build/release/bottleneckd.8"], "bottleneckd")],
}


def blocks(readme):
    """The lines of the first fenced block under each of the two headings."""
    want = {"## Quick start", "## Using it"}
    out, heading, fenced, taken = [], None, False, set()
    for line in open(readme, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            heading = line.strip()
            continue
        if line.lstrip().startswith("```"):
            if fenced:
                taken.add(heading)
            fenced = not fenced
            continue
        if fenced and heading in want and heading not in taken:
            out.append(line)
    return out


def readme_lines(readme):
    """Each command of the blocks: a comment dropped, `\\` joined, spaces squeezed."""
    out, pending = [], ""
    for line in blocks(readme):
        text = (pending + " " + line.strip()).strip() if pending else line.strip()
        if text.endswith("\\"):
            pending = text[:-1]
            continue
        pending = ""
        text = re.sub(r"\s+#.*$", "", text)
        text = re.sub(r"\s+", " ", text).strip()
        if text and not text.startswith("#"):
            out.append(text)
    return out


def write_pcap(path):
    """A small UDP echo capture (Ethernet/IPv4/UDP): 20 requests from
    10.0.0.1:40000 to 10.0.0.2:7, each echoed 50 us later."""
    def frame(src, dst, sport, dport, payload):
        udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, bytes(src), bytes(dst))
        return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp
    a, b = [10, 0, 0, 1], [10, 0, 0, 2]
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(20):
            payload = b"walk %04d " % i + b"x" * 54
            for us, fr in ((i * 1000, frame(a, b, 40000, 7, payload)), (i * 1000 + 50, frame(b, a, 7, 40000, payload))):
                f.write(struct.pack("<IIII", 1700000000, us, len(fr), len(fr)) + fr)


class Walk:
    def __init__(self, binary, src, work):
        self.binary, self.src, self.work = binary, src, work
        self.state = os.path.join(work, "state")
        os.makedirs(self.state, exist_ok=True)
        self.pcap = os.path.join(work, "walk.pcap")
        write_pcap(self.pcap)
        self.failed = 0

    def argv(self, words):
        sub = {"bin": self.binary, "work": self.work, "state": self.state,
               "sock": os.path.join(self.state, "control.sock"), "pcap": self.pcap}
        return [w.format(**sub) for w in words]

    def fail(self, line, why):
        self.failed += 1
        print("FAIL: %s: %s" % (line, why), flush=True)

    def exit0(self, line, words, expect):
        argv = self.argv(words)
        try:
            r = subprocess.run(argv, cwd=self.src, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return self.fail(line, "%s did not end within 120 s" % shlex.join(argv))
        out = r.stdout + r.stderr
        if r.returncode != 0:
            return self.fail(line, "%s exited %d: %s" % (shlex.join(argv), r.returncode, out.strip()[-400:]))
        if expect and expect not in out:
            return self.fail(line, "%s printed no %r: %s" % (shlex.join(argv), expect, out.strip()[-400:]))
        print("PASS: %s: ran %s" % (line, shlex.join(argv)), flush=True)

    def start(self, line, words, timeout):
        """Starts a daemon; returns (process, port) once it listens, or None."""
        argv = self.argv(words)
        log = open(os.path.join(self.work, "daemon-%d.log" % int(time.monotonic() * 1000)), "w+")
        p = subprocess.Popen(argv, cwd=self.src, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            log.seek(0)
            m = re.search(r"msg=listening address=127\.0\.0\.1:(\d+)", log.read())
            if m:
                return p, int(m.group(1)), log
            if p.poll() is not None:
                log.seek(0)
                self.fail(line, "%s exited %d before listening: %s" % (shlex.join(argv), p.returncode, log.read()[-600:]))
                return None
            time.sleep(0.2)
        self.stop(p)
        self.fail(line, "%s logged no listening address within %d s" % (shlex.join(argv), timeout))
        return None

    def stop(self, p):
        try:
            os.killpg(p.pid, signal.SIGTERM)
            return p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None

    def daemon(self, line, words, timeout, then=()):
        started = self.start(line, words, timeout)
        if not started:
            return
        p, port, log = started
        ok = True
        try:
            body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30).read().decode()
            if "# TYPE bottleneckd_" not in body:
                ok = False
                self.fail(line, "/metrics on port %d holds no bottleneckd series" % port)
        except OSError as e:
            ok = False
            self.fail(line, "/metrics on port %d: %s" % (port, e))
        for words_then in then:
            self.exit0(line, words_then, "")
        rc = self.stop(p)
        if rc != 0:
            log.seek(0)
            return self.fail(line, "%s exited %s on SIGTERM: %s" % (shlex.join(self.argv(words)), rc, log.read()[-400:]))
        if ok:
            print("PASS: %s: ran %s, scraped /metrics on 127.0.0.1:%d, stopped it (exit 0)" % (
                line, shlex.join(self.argv(words)), port), flush=True)


def run_store_queries(w, src):
    """docs/run-store.md's sqlite3 queries against the store the walk made
    (its daemon stopped): each must run without an error, so a column the
    page names and the schema lacks fails here."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import docs_commands  # noqa: E402: the docs' shell lines, read as docs_commands_test reads them
    db = os.path.join(w.state, "runs.db")
    queries = [(n, t) for n, t in docs_commands.shell_lines(os.path.join(src, "docs", "run-store.md"))
               if t.startswith("sqlite3 ")]
    if not queries:
        return w.fail("docs/run-store.md", "no sqlite3 query found in its shell blocks")
    for n, text in queries:
        where = "docs/run-store.md:%d" % n
        if "/var/lib/bottleneckd/runs.db" not in text:
            w.fail(where, "names no /var/lib/bottleneckd/runs.db to point at the walk's store: " + text[:80])
            continue
        # As a shell runs it (a redirection to a file lands in WORK_DIR).
        line = text.replace("/var/lib/bottleneckd/runs.db", shlex.quote(db))
        r = subprocess.run(["bash", "-c", line], cwd=w.work, capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or r.stderr.strip():
            w.fail(where, "sqlite3 exited %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
        else:
            print("PASS: %s: ran against the walk's run store: %s" % (where, text[:80]), flush=True)


def main():
    binary, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
    quick_start = "--no-quick-start" not in sys.argv[4:]
    lines = readme_lines(os.path.join(src, "README.md"))
    w = Walk(binary, src, work)
    not_run = 0
    for line in lines:
        if line not in WALK:
            w.fail(line, "a README line the walk does not know: add it to WALK in %s" % os.path.basename(__file__))
            continue
        for step in WALK[line]:
            kind = step[0]
            if kind == "reason":
                print("NOT RUN: %s: %s" % (line, step[1]), flush=True)
                not_run += 1
            elif kind == "daemon" and step[1][0] == "./scripts/run.sh" and not quick_start:
                w.fail(line, "left out (--no-quick-start)")
            elif kind == "exit0":
                w.exit0(line, step[1], step[2])
            elif kind == "daemon":
                w.daemon(line, step[1], step[2])
            elif kind == "daemon-around":
                w.daemon(line, step[1], 60, then=step[2])
    run_store_queries(w, src)
    for line in WALK:
        if line not in lines:
            w.fail(line, "in WALK but no longer in the README: drop or update its entry")
    print("%s: %d README lines walked, %d not runnable here (each says why), %d failed" % (
        "FAIL" if w.failed else "PASS", len(lines), not_run, w.failed))
    return 1 if w.failed else 0


if __name__ == "__main__":
    sys.exit(main())
