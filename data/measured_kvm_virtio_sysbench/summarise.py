"""Write repeats.csv: the headline figures of every sysbench output of each run of run.sh.

Usage: python3 summarise.py DIR1 [DIR2 ...] > repeats.csv   (DIR1 = run 1, ...). Standard
library only. The columns follow ../measured_kvm_virtio_bs/summarise.py's (qd is 1: sysbench's
synchronous mode keeps one I/O in flight per thread; numjobs is the thread count). The mean
latency is sysbench's latency sum over its events (its "avg" is printed to 0.01 ms)."""

import csv
import os
import re
import sys

FIELDS = ("run", "file", "load_avg_1min", "rw", "bs_bytes", "qd", "numjobs", "iops",
          "lat_mean_us", "lat_p99_us")


def grab(text, pattern):
    return float(re.search(pattern, text, re.M).group(1))


def row(run, path, load):
    text = open(path).read()
    return {
        "run": run, "file": os.path.basename(path), "load_avg_1min": load, "rw": "randread",
        "bs_bytes": 4096, "qd": 1, "numjobs": int(grab(text, r"^Number of threads:\s*(\d+)")),
        "iops": round(grab(text, r"reads/s:\s*([\d.]+)") + grab(text, r"writes/s:\s*([\d.]+)"),
                      1),
        "lat_mean_us": round(grab(text, r"^\s*sum:\s*([\d.]+)") * 1e3
                             / grab(text, r"total number of events:\s*(\d+)"), 1),
        "lat_p99_us": round(grab(text, r"99th percentile:\s*([\d.]+)") * 1e3, 1),
    }


out = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
out.writeheader()
for run, folder in enumerate(sys.argv[1:], 1):
    loads = dict(csv.reader(open(os.path.join(folder, "loadavg.csv"))))
    names = sorted((f for f in os.listdir(folder) if f.endswith(".txt")),
                   key=lambda f: int(re.search(r"threads(\d+)", f).group(1)))
    for name in names:
        out.writerow(row(run, os.path.join(folder, name), loads[name]))
