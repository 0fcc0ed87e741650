#!/bin/sh
# The measured sweeps of data/measured_kvm_virtio_bs: fio random reads over block sizes 4k..1m at
# iodepth 1 and 16, and a 4 KiB read/write mix sweep (randrw, rwmixread 100..0) at iodepth 16.
# Usage: sh run.sh [OUTDIR]   (default: this folder). Needs fio (apt-get install -y fio) and
# ~256 MiB free under /tmp. Each fio job's 1-minute load average goes to OUTDIR/loadavg.csv.
set -e
OUT=${1:-.}
mkdir -p "$OUT"
FILE=/tmp/iosim-fio-bs-sweep.dat
COMMON="--filename=$FILE --size=256M --direct=1 --ioengine=libaio --numjobs=1 --time_based \
 --runtime=3 --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting --output-format=json"
# lay the file out once (written, so reads hit real blocks rather than holes)
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 16; do
    for bs in 4k 8k 16k 32k 64k 128k 256k 512k 1m; do
        name=randread-$bs-qd$qd
        echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
        fio --name=$name $COMMON --rw=randread --bs=$bs --iodepth=$qd --output="$OUT/$name.json"
    done
done
for mix in 100 70 50 30 0; do
    name=randrw-4k-qd16-read$mix
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=$name $COMMON --rw=randrw --rwmixread=$mix --bs=4k --iodepth=16 \
        --output="$OUT/$name.json"
done
rm -f $FILE
