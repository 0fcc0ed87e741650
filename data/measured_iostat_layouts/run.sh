#!/bin/sh
# iostat's and sar's layouts of the same kind of load: a fio job (4 KiB random reads,
# iodepth 8, 22 s) keeps the disk busy while each form takes two 1-second reports (iostat's
# first covers the time since boot; sar's are both intervals).
# Usage: sh run.sh [FILE] (default /tmp/iostat-layouts.dat, 64 MiB).
set -e
F=${1:-/tmp/iostat-layouts.dat}
fio --name=load --filename=$F --size=64M --direct=1 --rw=randread --bs=4k --iodepth=8 \
    --ioengine=libaio --runtime=22 --time_based > /dev/null &
LOAD=$!
sleep 1
D=$(df --output=source "$(dirname "$F")" | tail -1 | sed 's#/dev/##; s#[0-9]*$##')
iostat -x "$D" 1 2 > x.txt
iostat -xh "$D" 1 2 > xh.txt            # -h: column groups, the device name last
iostat -x --human "$D" 1 2 > x-human.txt  # sizes with suffixes, percentages with %
iostat -h "$D" 1 2 > h.txt              # without -x: tps and kB columns
iostat -x -o JSON "$D" 1 2 > x.json
sar -d 1 2 > sar-d.txt                  # sar's device report (every device)
sar -d -p 1 2 > sar-dp.txt              # -p: the device name last
sar -d -o /tmp/iostat-layouts.sa 1 2 > /dev/null
sadf -d /tmp/iostat-layouts.sa -- -d > sadf-d.txt   # semicolon-separated
sadf -j /tmp/iostat-layouts.sa -- -d > sadf.json    # sysstat JSON
wait $LOAD
