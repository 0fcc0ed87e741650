#!/bin/sh
# randwrite 4k iodepth sweep + randread 4k numjobs sweep (psync), one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-sweep2.dat
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for qd in 1 2 4 8 16 32 64 128 256; do
    name=randwrite-4k-qd$qd
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randwrite-qd$qd --filename=$FILE --size=256M --rw=randwrite --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=$qd --numjobs=1 --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
for nj in 1 2 4 8 16 32; do
    name=randread-4k-psync-numjobs$nj
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=randread-nj$nj --filename=$FILE --size=256M --rw=randread --bs=4k \
        --direct=1 --ioengine=psync --numjobs=$nj --time_based --runtime=3 \
        --ramp_time=500ms --randrepeat=1 --norandommap --group_reporting \
        --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
