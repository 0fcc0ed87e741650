#!/bin/sh
# 4 KiB random writes with an fsync after every 4 (fio fsync=4), psync, numjobs 1..16, one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-fsync.dat
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for nj in 1 2 4 8 16; do
    name=randwrite-fsync4-nj$nj
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=$name --filename=$FILE --size=256M --rw=randwrite --bs=4k --direct=1 \
        --ioengine=psync --fsync=4 --numjobs=$nj --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
