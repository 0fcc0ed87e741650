#!/bin/sh
# fio 4k randread at fixed arrival rates (an open loop: rate_iops, Poisson), one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-sweep4.dat
fio --name=layout --filename=$FILE --size=512M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for rate in 2000 5000 10000 20000 30000 40000; do
    name=randread-4k-rate$rate
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=rate$rate --filename=$FILE --size=512M --rw=randread --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=64 --numjobs=1 --rate_iops=$rate \
        --rate_process=poisson --time_based --runtime=3 --ramp_time=500ms --randrepeat=1 \
        --norandommap --group_reporting --output-format=json --output="$OUT/$name.json"
done
rm -f $FILE
