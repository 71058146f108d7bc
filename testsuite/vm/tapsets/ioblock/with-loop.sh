#!/bin/sh
# with-loop.sh [-s SCHED] [-m] CMD...: runs CMD in the guest with DEV set
# to a fresh 8 MiB loop device (its I/O scheduler SCHED, default
# mq-deadline) and, with -m, an ext2 file system on it mounted at MNT;
# takes them down afterwards. The set-up's own I/O happens before CMD.
set -e
sched=mq-deadline mount=
while [ $# -gt 0 ]; do
	case $1 in
	-s) sched=$2; shift 2 ;;
	-m) mount=1; shift ;;
	*) break ;;
	esac
done
modprobe loop
img=$(mktemp /tmp/loopimg.XXXXXX)
truncate -s 8M "$img"
DEV=$(losetup -f --show "$img")
echo "$sched" > /sys/block/${DEV#/dev/}/queue/scheduler
MNT=
if [ -n "$mount" ]; then
	modprobe ext4
	mkfs.ext2 -q "$DEV"
	MNT=$(mktemp -d /tmp/loopmnt.XXXXXX)
	mount "$DEV" "$MNT"
fi
export DEV MNT
rc=0
"$@" || rc=$?
[ -z "$MNT" ] || umount "$MNT"
losetup -d "$DEV"
rm -f "$img"
exit $rc
