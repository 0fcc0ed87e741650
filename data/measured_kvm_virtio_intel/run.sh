#!/bin/sh
# The measured sweeps of data/measured_kvm_virtio_intel: exactly the commands of
# ../measured_kvm_virtio_quiet/run.sh (4 KiB random reads, libaio, iodepth 1..256) followed by
# those of ../measured_kvm_virtio_write/run.sh (4 KiB random writes, libaio, iodepth 1..256; 4 KiB
# random reads, psync, numjobs 1..32), run here as `sh ../measured_kvm_virtio_quiet/run.sh DIR`
# then `sh ../measured_kvm_virtio_write/run.sh DIR2`. Usage: sh run.sh [OUTDIR]. Needs fio
# (apt-get install -y fio) and ~256 MiB free under /tmp.
set -e
OUT=${1:-.}
HERE=$(dirname "$0")
TMP=$(mktemp -d)
sh "$HERE/../measured_kvm_virtio_quiet/run.sh" "$TMP/read"
sh "$HERE/../measured_kvm_virtio_write/run.sh" "$TMP/write"
mkdir -p "$OUT"
cp "$TMP"/read/*.json "$TMP"/write/*.json "$OUT/"
(cat "$TMP/read/loadavg.csv"; tail -n +2 "$TMP/write/loadavg.csv") > "$OUT/loadavg.csv"
rm -rf "$TMP"
