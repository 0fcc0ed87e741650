#!/bin/sh
# sysbench fileio with its latency histogram (--histogram=on): 16 KiB random reads, O_DIRECT,
# two threads, 2 s, on a 64 MiB file. Usage: sh run.sh [DIR] (default /tmp/sysbench-layouts).
set -e
D=${1:-/tmp/sysbench-layouts}
mkdir -p "$D"
HERE=$(pwd)
cd "$D"
sysbench fileio --file-total-size=64M --file-num=1 prepare > /dev/null
sysbench fileio --file-total-size=64M --file-num=1 --file-extra-flags=direct --time=2 \
    --file-fsync-freq=0 --file-test-mode=rndrd --threads=2 --histogram=on run \
    > "$HERE/histogram.txt"
sysbench fileio --file-total-size=64M --file-num=1 cleanup > /dev/null
