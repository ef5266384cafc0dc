#!/bin/busybox sh
# The init of the test boot image: it does what cloud-init would do with
# a NoCloud seed, as little as the tests need. It reads the seed (the
# ISO 9660 device labelled cidata, as site writes it), takes the hostname from its meta-data, and
# asks DHCP for an address with that hostname in the request, so the
# network's lease shows the seed was read. Then it idles.
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /seed /tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec >/dev/console 2>&1
say() { echo "site-boot: $*"; }
# The cloud kernel has these drivers as modules only; modules.order
# lists them dependencies first.
for m in $(cat /lib/modules/modules.order); do insmod "/lib/modules/$m" || say "insmod $m failed"; done
say "modules loaded"
# The seed is the block device whose ISO 9660 volume label (32 bytes at
# offset 32808) is cidata; wait for the drivers to find the devices.
label() { dd if="$1" bs=1 skip=32808 count=6 2>/dev/null; }
dev=""
i=0
while [ -z "$dev" ] && [ $i -lt 300 ]; do
	for d in /dev/sr* /dev/sd* /dev/vd*; do
		[ -b "$d" ] || continue
		case "$(label "$d")" in cidata | CIDATA) dev=$d ;; esac
	done
	[ -n "$dev" ] || { sleep 0.1; i=$((i + 1)); }
done
name=""
if [ -n "$dev" ] && mount -t iso9660 -o ro "$dev" /seed; then
	name=$(sed -n 's/^local-hostname:[ "]*\([^ "]*\).*/\1/p' /seed/meta-data)
	say "seed $dev read, local-hostname $name"
else
	say "no cidata seed found"
fi
[ -n "$name" ] && hostname "$name"
ip link set lo up
nic=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
say "asking DHCP on $nic as $(hostname)"
ip link set "$nic" up
udhcpc -i "$nic" -x "hostname:$(hostname)" -s /bin/dhcp-event -t 10 -T 1 -b
while :; do sleep 3600; done
