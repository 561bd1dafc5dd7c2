#!/usr/bin/env python3
"""The command lines the docs show, checked against the binary.

  docs_commands.py BOTTLENECKD SOURCE_DIR

Every line of a fenced code block in README.md and docs/*.md that starts with
`bottleneckd` (a `$ ` or `sudo ` before it allowed) is read as the shell reads
it (shlex, a trailing `# comment` dropped; a line ending in `\\` goes on):

- each `--flag` before a `--` must be one the command's own `--help` lists
  (`bottleneckd run --help` for `bottleneckd run ...`, `bottleneckd --help`
  otherwise); `--collector.NAME` / `--no-collector.NAME` must name a collector
  the help lists;
- the lines that end by themselves and touch nothing (`--help`,
  `--config.check`, `--once`) are run from SOURCE_DIR, bounded, and must exit
  0. The others start a daemon, a run or a recording, or read a file made
  earlier in the page: checked for their flags, and a NOT RUN line says why
  (tests/integration/readme_walkthrough.py runs each kind once).

And the figures name where they come from:

- each row of docs/performance.md's "Summary against the targets" table names
  the command behind its figure, in backticks: a `bench/` script or one of the
  benchmark binaries (BENCH_BINARIES);
- every `bench/NAME` the README and docs/ name exists in the tree.

Prints PASS/FAIL lines and exits 1 on any FAIL.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

COMMANDS = {"calibrate", "record", "run", "pcap", "report", "replay"}
BENCH_BINARIES = ("parsers_bench", "pci_bench")
RUNNABLE = {"--help", "--config.check", "--once"}


def command_lines(path):
    """(line number, text) of each bottleneckd command in a fenced block."""
    out, fenced, pending, start = [], False, "", 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                continue
            text = line.rstrip("\n")
            if pending:
                text = pending + " " + text.strip()
            else:
                start = n
                text = text.strip()
                text = re.sub(r"^(\$ |sudo )", "", text)
                if not text.startswith("bottleneckd "):
                    continue
            if text.endswith("\\"):
                pending = text[:-1]
                continue
            pending = ""
            out.append((start, text))
    return out


def words(text):
    lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return None


def figure_sources(src, files):
    """(rows checked, problems): the summary table's rows without a command,
    and bench/ paths the docs name that do not exist."""
    problems, rows, in_summary = [], 0, False
    perf = os.path.join(src, "docs", "performance.md")
    with open(perf, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                in_summary = line.strip() == "## Summary against the targets"
                continue
            if not in_summary or not line.startswith("| ") or line.startswith("| target "):
                continue
            rows += 1
            code = re.findall(r"`([^`]+)`", line)
            if not any(c.startswith("bench/") or re.search(r"(^|[\s/=])bench/", c) or c.startswith(BENCH_BINARIES)
                       for c in code):
                problems.append("docs/performance.md:%d: a summary figure names no bench command: %s" % (
                    n, line.strip()[:120]))
    if rows == 0:
        problems.append("docs/performance.md: no \"Summary against the targets\" table found")
    for path in files:
        rel = os.path.relpath(path, src)
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for name in re.findall(r"(?<![\w/.-])bench/[A-Za-z0-9_.-]+\.(?:sh|cc|c|py)\b", line):
                    if not os.path.exists(os.path.join(src, name)):
                        problems.append("%s:%d: names %s, which is not in the tree" % (rel, n, name))
    return rows, problems


# The other shell lines of the docs (```sh blocks; in a block that marks its
# commands with "$ ", only those), by their first word: where each runs, or
# why it cannot here. A line of a kind not listed fails: give it a place.
SHELL_KINDS = [
    (r"^sqlite3 ", "RUN ELSEWHERE: readme_walkthrough_test runs every sqlite3 query of docs/run-store.md against "
                   "its own run store"),
    (r"^printf .*\| *(socat|nc) ", "NOT RUN: speaks to the daemon's control socket with socat or netcat (not "
                                    "dependencies); tests/control/control_socket_test.cc sends the same requests"),
    (r"^(apt|dpkg-buildpackage|systemctl|adduser|\./scripts/install-deps\.sh) ",
     "NOT RUN: installs or changes the system; package_test builds, installs and starts the package in overlays"),
    (r"^curl -s localhost:9858/", "NOT RUN: needs the installed daemon on its default port; readme_walkthrough_test "
                                  "scrapes one on a private port"),
    (r"^(\./scripts/(run|test)\.sh|python3 lab/simulate\.py|man -l)",
     "RUN ELSEWHERE: the README's blocks, walked by readme_walkthrough_test"),
    (r"""^([A-Z_]+=("[^"]*"|'[^']*'|\S+) +)*(bench/|build[^ ]*/(duty|bench/))""",
     "NOT RUN: a benchmark (minutes of load, figures in docs/performance.md), not a test"),
]


def shell_lines(path):
    """(line number, command) of each non-bottleneckd shell command."""
    out, block, fenced, lang = [], [], False, ""
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            if fenced and lang in ("sh", "bash", "shell"):
                dollar = any(l.strip().startswith("$ ") for _, l in block)
                pending, start = "", 0
                for k, l in block:
                    t = l.strip()
                    if not pending:
                        if dollar and not t.startswith("$ "):
                            continue
                        t = re.sub(r"^(\$ |sudo )", "", t)
                        if not t or t.startswith("#"):
                            continue
                        start = k
                    text = (pending + " " + t) if pending else t
                    if text.endswith("\\"):
                        pending = text[:-1]
                        continue
                    try:
                        shlex.split(text, comments=True)
                    except ValueError:  # an open quote: the command goes on
                        pending = text
                        continue
                    pending = ""
                    if not text.startswith("bottleneckd "):
                        out.append((start, text))
            fenced = not fenced
            lang = line.strip()[3:] if fenced else ""
            block = []
            continue
        if fenced:
            block.append((n, line.rstrip("\n")))
    return out


def why_not_run(w, cmd, flags):
    """Why a checked line is not run here (its flags were checked)."""
    if "--prometheus.url" in flags:
        return "needs a Prometheus with the fleet's series (fleet_report_test runs it)"
    if cmd == "run" or "--" in w:
        return "starts a run of a command or joins one (readme_walkthrough_test runs one)"
    if cmd == "record":
        return "records this host for a duration (readme_walkthrough_test runs one)"
    if cmd in ("replay", "pcap", "report") or {"--replay", "--pcap", "--report"} & set(flags):
        return "reads a recording, capture or run store made earlier on its page (readme_walkthrough_test reads its own)"
    if cmd == "calibrate":
        return "writes the state directory (readme_walkthrough_test runs it in a private one)"
    return "starts a daemon that runs until stopped (readme_walkthrough_test starts and stops one)"


def main():
    binary, src = sys.argv[1], sys.argv[2]
    helps = {}

    def help_of(cmd):
        if cmd not in helps:
            args = [binary] + ([cmd] if cmd else []) + ["--help"]
            helps[cmd] = subprocess.run(args, capture_output=True, text=True, timeout=30).stdout
        return helps[cmd]

    collectors = set(re.findall(r"^  ([a-z_]+) +\[", help_of(""), re.M))
    failed = checked = ran = 0
    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    for path in files:
        rel = os.path.relpath(path, src)
        for n, text in command_lines(path):
            w = words(text)
            if not w:
                print("FAIL: %s:%d: cannot be read as a shell line: %s" % (rel, n, text))
                failed += 1
                continue
            cmd = w[1] if len(w) > 1 and w[1] in COMMANDS else ""
            flags = []
            for word in w[1:]:
                if word == "--":
                    break
                if word.startswith("--"):
                    flags.append(word.split("=", 1)[0])
            bad = []
            for flag in flags:
                m = re.match(r"^--(?:no-)?collector\.(.+)$", flag)
                if m:
                    if m.group(1) not in collectors:
                        bad.append(flag + " (no such collector)")
                elif not re.search(r"(^|[\s,])" + re.escape(flag) + r"\b", help_of(cmd)):
                    bad.append(flag)
            checked += 1
            if bad:
                print("FAIL: %s:%d: %s: not in `bottleneckd %s--help`: %s" % (
                    rel, n, text, cmd + " " if cmd else "", ", ".join(bad)))
                failed += 1
                continue
            if not (RUNNABLE & set(flags) and "--" not in w and "|" not in w and ">" not in text):
                print("NOT RUN: %s:%d: %s: %s" % (rel, n, text, why_not_run(w, cmd, flags)))
                continue
            if True:
                run = subprocess.run([binary] + w[1:], cwd=src, capture_output=True, text=True, timeout=60)
                ran += 1
                if run.returncode != 0:
                    print("FAIL: %s:%d: %s exited %d: %s" % (rel, n, text, run.returncode, run.stderr.strip()[-300:]))
                    failed += 1
                    continue
                print("PASS: %s:%d: ran: %s" % (rel, n, text))
    for path in files:
        rel = os.path.relpath(path, src)
        for n, text in shell_lines(path):
            kind = next((why for pattern, why in SHELL_KINDS if re.search(pattern, text)), None)
            if kind is None:
                print("FAIL: %s:%d: a shell line this test cannot place (run it or say why in SHELL_KINDS): %s" % (
                    rel, n, text[:100]))
                failed += 1
            else:
                print("%s: %s:%d: %s:%s" % (kind.split(":")[0], rel, n, text[:100], kind[kind.index(":") + 1:]))
    rows, f = figure_sources(src, files)
    for problem in f:
        print("FAIL: " + problem)
    failed += len(f)
    print("%s: %d command lines checked, %d of them run; %d summary figures name their command; %d failed" % (
        "FAIL" if failed else "PASS", checked, ran, rows, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
