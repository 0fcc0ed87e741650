#!/bin/sh
# A measured block trace without blktrace (no CAP_SYS_ADMIN in this guest): fio 4 KiB
# randrw 70/30 at Poisson arrival rates, every I/O's issue time (write_iolog, v3, us) and
# latency with its offset (write_lat_log, log_offset=1, ns), one run into $1
set -e
OUT=$1; mkdir -p "$OUT"
FILE=/tmp/iosim-fio-trace.dat
fio --name=layout --filename=$FILE --size=256M --rw=write --bs=1M --direct=1 \
    --ioengine=libaio --iodepth=4 --output=/dev/null
echo "file,load_avg_1min" > "$OUT/loadavg.csv"
for spec in 10000:1s 30000:400ms; do
    rate=${spec%:*}; secs=${spec#*:}
    r=$((rate * 7 / 10)); w=$((rate * 3 / 10))
    name=rw70-poisson-$rate
    echo "$name.json,$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/loadavg.csv"
    fio --name=$name --filename=$FILE --size=256M --rw=randrw --rwmixread=70 --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=256 --numjobs=1 --time_based \
        --runtime=$secs --rate_iops=$r,$w --rate_process=poisson --randrepeat=1 \
        --norandommap --write_lat_log="$OUT/$name" --log_offset=1 \
        --write_iolog="$OUT/$name.iolog" --output-format=json --output="$OUT/$name.json"
    rm -f "$OUT/${name}_clat.1.log" "$OUT/${name}_slat.1.log"
    xz -9 "$OUT/${name}_lat.1.log" "$OUT/$name.iolog"
done
rm -f $FILE
