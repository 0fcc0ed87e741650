#!/bin/sh
# sequential 128k read iodepth sweep + random 4k read iodepth sweep at four jobs, one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-sweep3.dat
fio --name=layout --filename=$FILE --size=512M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 2 4 8 16 32 64; do
    name=read-128k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=seqread-qd$qd --filename=$FILE --size=512M --rw=read --bs=128k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=3 \
        --ramp_time=500ms --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
for qd in 1 2 4 8 16 32 64; do
    name=randread-4k-nj4-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=nj4-qd$qd --filename=$FILE --size=512M --rw=randread --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=4 --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
