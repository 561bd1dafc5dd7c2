#!/usr/bin/env python3
"""Host simulator: writes a recording (docs/recording-format.md) of a
simulated host under network load, with the expected verdict of every run.

Usage:
  python3 lab/simulate.py --list
  python3 lab/simulate.py SCENARIO OUT_DIR

The model, the scenarios and their ground truth are described in
lab/README.md. Deterministic: the same scenario gives the same files.
Standard library only.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from recorder import record  # noqa: E402
from scenarios import SCENARIOS  # noqa: E402


def main(argv):
    if argv == ["--list"]:
        for name, make in SCENARIOS.items():
            s = make()
            print("%-11s %s" % (name, s.summary))
            for load in s.loads:
                truth = load.label + (" " + load.resource if load.resource else "")
                print("    %-20s %5.0f-%-5.0f s  %8.0f pps  expected %s" % (
                    load.name, load.start, load.end, load.pps, truth))
        return 0
    if len(argv) != 2 or argv[0] not in SCENARIOS:
        sys.stderr.write("usage: simulate.py --list | SCENARIO OUT_DIR\nscenarios: %s\n"
                         % ", ".join(SCENARIOS))
        return 2
    s = SCENARIOS[argv[0]]()
    record(s, argv[1])
    print("%s: %d samples, %d runs -> %s" % (s.name, s.samples, len(s.loads), argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
