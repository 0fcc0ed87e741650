#!/bin/sh
# A device of another kind: zram (a compressed RAM disk; the CPU compresses and decompresses
# each request in the submitting thread). 4 KiB random reads by depth (libaio, one job) and by
# jobs (psync), one run into $1. Needs root and a zram device: sh run.sh OUT [/dev/zram0].
set -e
OUT=$1; DEV=${2:-/dev/zram0}; mkdir -p "$OUT"
if [ "$(cat /sys/block/$(basename $DEV)/disksize)" = 0 ]; then
    echo 256M > /sys/block/$(basename $DEV)/disksize
fi
# fill it with half-compressible data (zram keeps what it cannot compress as it is)
fio --name=fill --filename=$DEV --size=256M --rw=write --bs=1M --direct=1 --ioengine=libaio \
    --iodepth=4 --buffer_compress_percentage=50 --refill_buffers --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 2 4 8 16 32 64; do
    name=randread-4k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randread-qd$qd --filename=$DEV --size=256M --rw=randread --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=2 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
for nj in 1 2 4 8 16; do
    name=randread-4k-psync-numjobs$nj
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randread-nj$nj --filename=$DEV --size=256M --rw=randread --bs=4k \
        --direct=1 --ioengine=psync --numjobs=$nj --time_based --runtime=2 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
