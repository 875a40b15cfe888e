#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make demo` (tests/demo.sh).
set -e
cd "$(dirname "$0")/../.."

run() {
	echo "# $*"
	"$@"
}

# a command that fails on purpose: its exit status shown
run_fails() {
	local st=0

	echo "# $*"
	"$@" || st=$?
	echo "# (exit $st)"
}

echo "# uname -r: $(uname -r)"
run insmod build/kmod/6.1/iolat.ko
run modprobe null_blk nr_devices=1 irqmode=2 completion_nsec=50000
run build/iolat info
echo
echo "# one line per request: 8 direct 4k reads on null_blk"
run build/iolat trace -d nullb0 -- fio --name=t --filename=/dev/nullb0 \
	--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
	--number_ios=8 --size=64M --eta=never --output=/dev/null
echo
echo "# the NVMe drive behind mq-deadline; 4k random reads and writes at QD 8"
echo "# on it, and 4k random reads at QD 1 on null_blk (50 us timer"
echo "# completions), at once:"
echo mq-deadline >/sys/block/nvme0n1/queue/scheduler
run build/iolat record -d nvme0n1 -d nullb0 -- sh -c '
	fio --name=nvme --filename=/dev/nvme0n1 --rw=randrw --bs=4k --direct=1 \
	    --ioengine=libaio --iodepth=8 --runtime=5 --time_based \
	    --eta=never --output=/dev/null &
	fio --name=null --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 \
	    --ioengine=psync --runtime=5 --time_based \
	    --eta=never --output=/dev/null
	wait'
echo
echo "# exact %util: single 4k reads at 200/s on null_blk (QD 1, a low duty"
echo "# cycle); iolat's busy time against the kernel's jiffy-sampled %util"
run build/iolat stat -d nullb0 2 -- fio --name=sparse --filename=/dev/nullb0 \
	--rw=randread --bs=4k --direct=1 --ioengine=psync --rate_iops=200 \
	--runtime=6 --time_based --eta=never --output=/dev/null
echo
run build/iolat clocktest
echo
echo "# NVMe commands: a 1 MiB sequential write in 128k blocks, a discard of"
echo "# 4 MiB at 1 MiB (-f: without libblkid's probing reads first), and"
echo "# nvme-cli's identify (an admin command, qid 0)"
echo none >/sys/block/nvme0n1/queue/scheduler
run build/iolat trace --nvme -d nvme0n1 -- sh -c '
	fio --name=seq --filename=/dev/nvme0n1 --rw=write --bs=128k --size=1M \
	    --direct=1 --ioengine=psync --eta=never --output=/dev/null
	blkdiscard -f -o 1048576 -l 4194304 /dev/nvme0n1 2>/dev/null
	nvme id-ctrl /dev/nvme0 >/dev/null'
echo
echo "# per queue and opcode: 4k random reads and writes at QD 8"
run build/iolat nvme -- fio --name=q --filename=/dev/nvme0n1 --rw=randrw \
	--bs=4k --direct=1 --ioengine=libaio --iodepth=8 --number_ios=2000 \
	--size=64M --eta=never --output=/dev/null
echo
echo "# without privilege, then without the module: one line, exit 1"
run_fails su nobody -s /bin/sh -c 'build/iolat record -d nvme0n1 -t 5'
run rmmod iolat
run_fails build/iolat record -d nvme0n1 -t 5
