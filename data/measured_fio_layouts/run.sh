#!/bin/sh
# The same short fio job (4 KiB random 70/30 reads and writes, depth 4, 1 s) written in the
# output layouts fio offers: terse versions 2 to 5, and unified_rw_reporting=mixed / both in
# JSON, normal text and terse. Usage: sh run.sh [FILE] (default /tmp/fio-layouts.dat, 64 MiB).
set -e
F=${1:-/tmp/fio-layouts.dat}
JOB="--name=rw70 --filename=$F --size=64M --direct=1 --rw=randrw --rwmixread=70 --bs=4k \
     --iodepth=4 --ioengine=libaio --runtime=1 --time_based"
for v in 2 3 4 5; do
    fio $JOB --output-format=terse --terse-version=$v > terse-v$v.txt
done
fio $JOB --unified_rw_reporting=mixed --output-format=terse > mixed-terse.txt
fio $JOB --unified_rw_reporting=mixed --output-format=json > mixed.json
fio $JOB --unified_rw_reporting=mixed > mixed-normal.txt
fio $JOB --unified_rw_reporting=both --output-format=terse > both-terse.txt
fio $JOB --unified_rw_reporting=both --output-format=json > both.json
fio $JOB --unified_rw_reporting=both > both-normal.txt
