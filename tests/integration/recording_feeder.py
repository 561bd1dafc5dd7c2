#!/usr/bin/env python3
"""Plays a recording (docs/recording-format.md) into a live kernel-file tree.

  recording_feeder.py RECORDING TREE FIRST_SAMPLE [INTERVAL_SECONDS]

Copies static/ into TREE (proc/, sys/, ethtool/ as a daemon's --path.procfs,
--path.sysfs, --path.ethtool expect), lays sample FIRST_SAMPLE over it, writes
TREE/.ready, then lays the next sample over it every INTERVAL (default: the
recording's interval) until the last one, and keeps that. Files are replaced
by rename, so a daemon sampling the tree never reads one half written: to the
daemon the tree is a host whose counters move as the recording's did. The
sample's `time` and `soaker` files are not kernel files and stay out.
Standard library only.
"""
import os
import shutil
import sys
import time


def lay(sample, tree):
    for dirpath, dirnames, filenames in os.walk(sample):
        rel = os.path.relpath(dirpath, sample)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d in ("proc", "sys", "ethtool")]
            continue
        dst_dir = os.path.join(tree, rel)
        os.makedirs(dst_dir, exist_ok=True)
        for name in dirnames + filenames:
            src = os.path.join(dirpath, name)
            dst = os.path.join(dst_dir, name)
            if os.path.islink(src):
                if not os.path.lexists(dst):
                    os.symlink(os.readlink(src), dst)
            elif os.path.isfile(src):
                tmp = os.path.join(dst_dir, ".%s.tmp" % name)
                shutil.copyfile(src, tmp)
                os.replace(tmp, dst)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    rec, tree, first = argv[0], argv[1], int(argv[2])
    interval = float(argv[3]) if len(argv) == 4 else 1.0
    samples = sorted(os.listdir(os.path.join(rec, "samples")))
    if first >= len(samples):
        sys.exit("recording %s has %d samples, not %d" % (rec, len(samples), first + 1))
    shutil.copytree(os.path.join(rec, "static"), tree, symlinks=True, dirs_exist_ok=True)
    lay(os.path.join(rec, "samples", samples[first]), tree)
    open(os.path.join(tree, ".ready"), "w").close()
    next_at = time.monotonic() + interval
    for s in samples[first + 1:]:
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at += interval
        lay(os.path.join(rec, "samples", s), tree)
    while True:  # the last sample stays, as a host gone quiet
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
