#!/bin/sh
# The measured sweep of data/measured_kvm_virtio_quiet: fio 4 KiB random reads, one job,
# iodepth 1..256, as data/measured_kvm_virtio's run.sh but with plain JSON output and the load
# average of each job recorded. Usage: sh run.sh [OUTDIR]   (default: this folder). Needs fio
# (apt-get install -y fio) and ~256 MiB free under /tmp.
set -e
OUT=${1:-.}
mkdir -p "$OUT"
FILE=/tmp/iosim-fio-sweep.dat
# lay the file out once (written, so reads hit real blocks rather than holes)
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 2 4 8 16 32 64 128 256; do
    name=randread-4k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randread-qd$qd --filename=$FILE --size=256M --rw=randread --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
