#!/usr/bin/env python3
"""Verdict accuracy over the lab scenarios, end to end: each scenario is
simulated into a recording (lab/simulate.py), replayed by the real binary
(`bottleneckd --replay DIR`, one summary line per window with the verdict
after hysteresis), and each run's verdict is compared with its ground truth.

Per run: the label held by most windows in the run once it has settled
(after its first `settle` windows), whether label and resource match the
expected ones, and the time to verdict: seconds from the run's start to the
first window showing the expected label. Prints a Markdown table and the
accuracy; docs/verdict-rules.md quotes it. A measurement, not a test: it
never fails on a wrong label.

usage: lab/accuracy.py BOTTLENECKD [SCENARIO ...]   (default: every scenario)
"""

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import read_recording  # noqa: E402
import scenarios  # noqa: E402

LINE = re.compile(r"^\+(?P<t>[0-9.]+)s .* verdict (?P<label>\w+) (?P<conf>[0-9.]+)(?: \[(?P<res>[^\]]*)\])?$")
SETTLE = 5  # windows: hysteresis (3) plus the step's own transition


def replay(binary, rec):
    out = subprocess.run([binary, "--config.file", os.path.join(HERE, "replay.yaml"), "--replay", rec], capture_output=True, text=True, check=True).stdout
    windows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            windows.append((float(m["t"]), m["label"], m["res"] or "", float(m["conf"])))
    return windows


def main():
    binary = sys.argv[1]
    names = sys.argv[2:] or list(scenarios.SCENARIOS)
    rows, right, total = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            rec = os.path.join(tmp, name)
            subprocess.run([sys.executable, os.path.join(HERE, "simulate.py"), name, rec], check=True,
                           capture_output=True)
            info = read_recording.parse_yaml(open(os.path.join(rec, "recording.yaml")).read())
            windows = replay(binary, rec)
            for run in info.get("runs", []):
                start, end = float(run["start"]), float(run["end"])
                want = run.get("expected", {})
                want_label, want_res = want.get("label", ""), want.get("resource", "")
                inside = [w for w in windows if start < w[0] <= end]
                settled = inside[SETTLE:] or inside
                label, count = Counter((w[1], w[2]) for w in settled).most_common(1)[0] if settled else (("-", ""), 0)
                ok_label = label[0] == want_label
                ok = ok_label and (not want_res or label[1] == want_res)
                first = next((w[0] - start for w in inside if w[1] == want_label), None)
                total += 1
                right += ok
                rows.append("| %s | %s | %s %s | %s %s (%d/%d windows) | %s | %s |" % (
                    name, run["name"], want_label, want_res, label[0], label[1], count, len(settled),
                    "yes" if ok else ("label only" if ok_label else "**no**"),
                    "%.0f s" % first if first is not None else "never"))
    print("| scenario | run | expected | verdict (settled windows) | right | time to verdict |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\naccuracy: %d of %d runs (%.0f %%)" % (right, total, 100.0 * right / max(total, 1)))


if __name__ == "__main__":
    main()
