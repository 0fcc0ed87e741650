#!/bin/sh
# 16 KiB randread and 4 KiB randrw 70/30, one job, iodepth 1..256, one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-sweep3.dat
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 2 4 8 16 32 64 128 256; do
    name=randread-16k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randread16k-qd$qd --filename=$FILE --size=256M --rw=randread --bs=16k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
for qd in 1 2 4 8 16 32 64 128 256; do
    name=randrw70-4k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randrw70-qd$qd --filename=$FILE --size=256M --rw=randrw --rwmixread=70 --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
