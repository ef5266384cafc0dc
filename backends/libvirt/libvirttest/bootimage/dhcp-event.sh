#!/bin/sh
# udhcpc's event script: configure the address it got, say it on the console.
case "$1" in
bound | renew)
	ip addr flush dev "$interface"
	ip addr add "$ip/${mask:-24}" dev "$interface"
	echo "site-boot: lease $ip on $interface"
	;;
esac
