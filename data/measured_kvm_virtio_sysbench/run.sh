#!/bin/sh
# The measured sweep of data/measured_kvm_virtio_sysbench: sysbench fileio 4 KiB random reads
# with O_DIRECT on one 256 MiB file, threads 1..32, 5 s each, one output file per thread
# count, and the load average of each run recorded. Usage: sh run.sh [OUTDIR]  (default: this
# folder). Needs sysbench (apt-get install -y sysbench) and ~256 MiB free under /tmp.
set -e
OUT=$(cd "${1:-.}" 2>/dev/null || mkdir -p "${1:-.}"; cd "${1:-.}"; pwd)
WORK=$(mktemp -d /tmp/iosim-sysbench.XXXXXX)
cd "$WORK"
COMMON="fileio --file-num=1 --file-total-size=256M --file-block-size=4096 --file-test-mode=rndrd --file-extra-flags=direct"
sysbench $COMMON prepare > /dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for t in 1 2 4 8 16 32; do
    name=rndrd-4k-direct-threads$t.txt
    echo "$name,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    sysbench $COMMON --threads=$t --time=5 --percentile=99 --histogram=off run > "$OUT/$name"
done
sysbench $COMMON cleanup > /dev/null
cd / && rm -rf "$WORK"
