package pdnstest

import (
	"fmt"
	"net"
)

// freeTCPPort asks the kernel for a free loopback port. Another process
// could take it before pdns_server binds it; Start then tries again on
// other ports.
func freeTCPPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// freeDNSPort finds a port that is free for both TCP and UDP, since
// pdns_server binds both.
func freeDNSPort() (int, error) {
	for range 20 {
		port, err := freeTCPPort()
		if err != nil {
			return 0, err
		}
		u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		if err != nil {
			continue
		}
		u.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no loopback port free for both TCP and UDP after 20 tries")
}
