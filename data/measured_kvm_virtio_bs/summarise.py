"""Write repeats.csv: the headline figures of every fio JSON file of each run of run.sh.

Usage: python3 summarise.py DIR1 [DIR2 ...] > repeats.csv   (DIR1 = run 1, ...). Standard
library only. A job without an iodepth option (psync) has fio's default, 1. IOPS are reads +
writes; latencies (fio's lat_ns, percentiles from clat_ns) are the I/O-weighted mean of both
directions, and also given per direction. The last column, ioengine, was added for
../measured_kvm_virtio_intel (whose libaio and psync sweeps are both random reads), and
rate_iops (fio's per-job rate limit) for ../measured_kvm_virtio_rate; the earlier folders'
repeats.csv files were written without them."""

import csv
import glob
import json
import os
import sys

SIZES = {"4k": 4096, "8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536, "128k": 131072,
         "256k": 262144, "512k": 524288, "1m": 1048576}


def row(run, path, load):
    job = json.load(open(path))["jobs"][0]
    opts = job["job options"]
    r, w = job["read"], job["write"]
    n = r["total_ios"] + w["total_ios"]

    def both(get):
        return sum(get(d) * d["total_ios"] for d in (r, w) if d["total_ios"]) / n

    pct = r if r["total_ios"] >= w["total_ios"] else w
    return {
        "run": run, "file": os.path.basename(path), "load_avg_1min": load,
        "rw": opts["rw"], "bs_bytes": SIZES[opts["bs"]], "qd": int(opts.get("iodepth", 1)),
        "numjobs": int(opts.get("numjobs", 1)),
        "rwmixread": opts.get("rwmixread", ""),
        "iops": round(r["iops"] + w["iops"], 1),
        "read_iops": round(r["iops"], 1), "write_iops": round(w["iops"], 1),
        "lat_mean_us": round(both(lambda d: d["lat_ns"]["mean"]) / 1e3, 1),
        "read_lat_mean_us": round(r["lat_ns"]["mean"] / 1e3, 1) if r["total_ios"] else "",
        "write_lat_mean_us": round(w["lat_ns"]["mean"] / 1e3, 1) if w["total_ios"] else "",
        "lat_p50_us": round(pct["clat_ns"]["percentile"]["50.000000"] / 1e3, 1),
        "lat_p99_us": round(pct["clat_ns"]["percentile"]["99.000000"] / 1e3, 1),
        "ioengine": opts.get("ioengine", ""),
        "rate_iops": opts.get("rate_iops", ""),
    }


out = None
for run, folder in enumerate(sys.argv[1:], 1):
    loads = dict(csv.reader(open(os.path.join(folder, "loadavg.csv"))))
    for path in sorted(glob.glob(os.path.join(folder, "*.json")), key=os.path.getmtime):
        got = row(run, path, loads.get(os.path.basename(path), ""))
        if out is None:
            out = csv.DictWriter(sys.stdout, list(got), lineterminator="\n")
            out.writeheader()
        out.writerow(got)
