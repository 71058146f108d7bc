#!/bin/sh
# with-scsi-debug.sh CMD...: runs CMD in the guest with DEV set to the
# disk of scsi_debug (an 8 MiB SCSI disk in memory, loaded once per guest:
# it loads scsi_mod before the probes on it are registered).
set -e
modprobe scsi_debug dev_size_mb=8
modprobe sd_mod
for i in 1 2 3 4 5 6 7 8 9 10; do
	b=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*/block 2>/dev/null || true)
	[ -z "$b" ] || [ ! -b /dev/$b ] || break
	sleep 0.2
done
DEV=/dev/$b
export DEV
exec "$@"
