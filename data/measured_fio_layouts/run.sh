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
# a size split (bs=4k beside it is not used); fio's random map turns away 64k blocks once
# room for them is scarce in the 64 MiB file, so fewer than half the I/Os are 64k
fio $JOB --bssplit=4k/50:64k/50 --output-format=json > bssplit.json
# sizes that vary otherwise: a range, and reads and writes of different sizes
RANGE="--name=range --filename=$F --size=64M --direct=1 --rw=randread --bsrange=4k-64k \
     --iodepth=4 --ioengine=libaio --runtime=1 --time_based"
fio $RANGE --output-format=json > bsrange.json
fio $RANGE > bsrange-normal.txt
fio $JOB --bs=4k,64k --output-format=json > bs-read4k-write64k.json
fio $JOB --bs=4k,64k > bs-read4k-write64k-normal.txt
# a depth-1 job that waits 100 us (fio: microseconds when unitless) after each completion
fio $JOB --iodepth=1 --thinktime=100 --output-format=json > thinktime.json

# client/server mode: a fio server on this machine, reached as two clients (localhost and
# 127.0.0.1), with and without --status-interval; one client with numjobs=2
fio --server > /dev/null 2>&1 &
SERVER=$!
sleep 1
cat > /tmp/fio-layouts-job.fio <<JOB
[rw70]
filename=$F
size=64M
direct=1
rw=randrw
rwmixread=70
bs=4k
iodepth=4
ioengine=libaio
runtime=1
time_based
JOB
sed 's/^time_based$/time_based\nnumjobs=2/' /tmp/fio-layouts-job.fio > /tmp/fio-layouts-job2.fio
C2="--client=localhost /tmp/fio-layouts-job.fio --client=127.0.0.1 /tmp/fio-layouts-job.fio"
fio $C2 --output-format=json > client2.json
fio $C2 > client2-normal.txt
fio $C2 --status-interval=1 --output-format=json > client2-status.json
fio $C2 --status-interval=1 > client2-status-normal.txt
fio --client=localhost /tmp/fio-layouts-job.fio --status-interval=1 --output-format=json \
    > client1-status.json
fio --client=localhost /tmp/fio-layouts-job2.fio --output-format=json > client1-numjobs2.json
kill $SERVER
