//go:build cgo && libvirt_dlopen

package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// libvirtProxy is the libvirt counterpart of killProxy: a unix socket
// that relays libvirt's RPC protocol between site and a daemon's socket,
// one message at a time, and kills the site process it is armed for
// once the daemon has carried out one of its state-changing calls,
// before the answer reaches it. Reads are relayed but not killed at: a
// kill before a read leaves the host as the kill after the last write
// before it did. Nor is a kill made after an answer: the daemon's state
// after a call does not hang on whether its answer reached site, and
// site keeps no state of its own but its lock, so it would leave the
// host as the kill before the answer does.
//
// The protocol (libvirt's src/rpc/virnetprotocol.x, the program and
// procedure numbers from src/remote/remote_protocol.x; stable, as old
// clients must keep working): every message is a 4-byte big-endian
// length that counts itself, then a header of six 32-bit words (program,
// version, procedure, type, serial, status), then the payload. A call
// (type 0) is answered by a reply (type 1) with its serial; uploads
// follow their call's reply with stream messages (type 3).
type libvirtProxy struct {
	sock   string // site connects here: qemu:///system?socket=SOCK
	daemon string // the daemon's socket

	mu   sync.Mutex
	cond *sync.Cond // signalled when a kill is done
	run  *killedRun
	at   int // the state-changing call to kill after, 1-based; 0: never
	// pending is the call killed at, relayed to the daemon, whose reply
	// is awaited: no other message goes to the daemon meanwhile.
	pending *pendingCall
	calls   []string // every call of the armed run, writes marked
	writes  []string // its state-changing calls
}

type pendingCall struct {
	conn   *relayedConn
	serial uint32
}

// relayedConn is one of site's connections and the proxy's to the
// daemon.
type relayedConn struct{ site, daemon net.Conn }

func (c *relayedConn) close() {
	c.site.Close()
	c.daemon.Close()
}

const (
	remoteProgram   = 0x20008086
	rpcCall         = 0
	rpcReply        = 1
	rpcHeaderLength = 28 // length word and header
)

// newLibvirtProxy listens on a socket in a directory of its own and
// relays to the daemon's socket until the test ends.
func newLibvirtProxy(t *testing.T, daemonSock string) *libvirtProxy {
	t.Helper()
	p := &libvirtProxy{sock: filepath.Join(t.TempDir(), "proxy-sock"), daemon: daemonSock}
	p.cond = sync.NewCond(&p.mu)
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		t.Fatal(err)
	}
	// Connections end with site's: a run closes its own when it exits
	// or dies.
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("unix", p.daemon)
			if err != nil {
				c.Close()
				continue
			}
			rc := &relayedConn{site: c, daemon: d}
			go p.relayCalls(rc)
			go p.relayReplies(rc)
		}
	}()
	return p
}

// arm makes the proxy kill run after its at-th state-changing call (0:
// count its calls only).
func (p *libvirtProxy) arm(run *killedRun, at int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.run, p.at, p.pending, p.calls, p.writes = run, at, nil, nil, nil
}

// disarm relays everything again and returns the calls the armed run
// made and the state-changing ones among them.
func (p *libvirtProxy) disarm() (calls, writes []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	calls, writes = p.calls, p.writes
	p.run, p.at, p.pending, p.calls, p.writes = nil, 0, nil, nil, nil
	p.cond.Broadcast()
	return calls, writes
}

// readMessage reads one whole message.
func readMessage(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size < rpcHeaderLength || size > 64<<20 {
		return nil, fmt.Errorf("libvirt message of %d bytes", size)
	}
	msg := make([]byte, size)
	copy(msg, n[:])
	_, err := io.ReadFull(r, msg[4:])
	return msg, err
}

// header fields of a message.
func rpcField(msg []byte, i int) uint32 { return binary.BigEndian.Uint32(msg[4+4*i:]) }

func (p *libvirtProxy) relayCalls(c *relayedConn) {
	defer c.close()
	for {
		msg, err := readMessage(c.site)
		if err != nil {
			return
		}
		if !p.admit(c, msg) {
			return
		}
		if _, err := c.daemon.Write(msg); err != nil {
			return
		}
	}
}

// admit decides whether a message site sent goes to the daemon: not
// while a killed-at call awaits its reply, nor ever after the kill. It
// counts the armed run's calls and marks the one to kill after.
func (p *libvirtProxy) admit(c *relayedConn, msg []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.run != nil && p.pending != nil && !p.run.wasKilled() {
		p.cond.Wait()
	}
	if p.run == nil {
		return true
	}
	if p.run.wasKilled() {
		return false
	}
	prog, proc, typ := rpcField(msg, 0), rpcField(msg, 2), rpcField(msg, 3)
	if prog != remoteProgram || typ != rpcCall {
		return true
	}
	name := procName(proc)
	if readOnlyProcs[proc] {
		p.calls = append(p.calls, name)
		return true
	}
	p.calls = append(p.calls, name+" (write)")
	p.writes = append(p.writes, name)
	if len(p.writes) == p.at {
		p.pending = &pendingCall{conn: c, serial: rpcField(msg, 4)}
	}
	return true
}

func (p *libvirtProxy) relayReplies(c *relayedConn) {
	defer c.close()
	for {
		msg, err := readMessage(c.daemon)
		if err != nil {
			return
		}
		if !p.answer(c, msg) {
			return
		}
	}
}

// answer relays one message of the daemon's to site, unless it is the
// reply to the killed-at call: then site is killed, and never gets it.
func (p *libvirtProxy) answer(c *relayedConn, msg []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil && p.run.wasKilled() {
		return false
	}
	pc := p.pending
	if pc == nil || pc.conn != c || rpcField(msg, 3) != rpcReply || rpcField(msg, 4) != pc.serial {
		_, err := c.site.Write(msg)
		return err == nil
	}
	p.run.kill()
	p.pending = nil
	p.cond.Broadcast()
	return false
}

// procNames names the procedures site is seen to call (remote_protocol.x).
var procNames = map[uint32]string{
	1: "CONNECT_OPEN", 2: "CONNECT_CLOSE", 3: "CONNECT_GET_TYPE", 4: "CONNECT_GET_VERSION",
	7: "CONNECT_GET_CAPABILITIES", 9: "DOMAIN_CREATE", 11: "DOMAIN_DEFINE_XML", 12: "DOMAIN_DESTROY",
	14: "DOMAIN_GET_XML_DESC", 15: "DOMAIN_GET_AUTOSTART", 16: "DOMAIN_GET_INFO",
	23: "DOMAIN_LOOKUP_BY_NAME", 24: "DOMAIN_LOOKUP_BY_UUID", 29: "DOMAIN_SET_AUTOSTART",
	35: "DOMAIN_UNDEFINE", 39: "NETWORK_CREATE", 41: "NETWORK_DEFINE_XML", 42: "NETWORK_DESTROY",
	43: "NETWORK_GET_XML_DESC", 44: "NETWORK_GET_AUTOSTART", 45: "NETWORK_GET_BRIDGE_NAME",
	46: "NETWORK_LOOKUP_BY_NAME", 48: "NETWORK_SET_AUTOSTART", 49: "NETWORK_UNDEFINE",
	59: "CONNECT_GET_HOSTNAME", 60: "CONNECT_SUPPORTS_FEATURE", 66: "AUTH_LIST",
	77: "STORAGE_POOL_DEFINE_XML", 78: "STORAGE_POOL_CREATE", 79: "STORAGE_POOL_BUILD",
	83: "STORAGE_POOL_REFRESH", 84: "STORAGE_POOL_LOOKUP_BY_NAME", 87: "STORAGE_POOL_GET_INFO",
	88: "STORAGE_POOL_GET_XML_DESC", 89: "STORAGE_POOL_GET_AUTOSTART", 90: "STORAGE_POOL_SET_AUTOSTART",
	91: "STORAGE_POOL_NUM_OF_VOLUMES", 92: "STORAGE_POOL_LIST_VOLUMES", 93: "STORAGE_VOL_CREATE_XML", 94: "STORAGE_VOL_DELETE", 95: "STORAGE_VOL_LOOKUP_BY_NAME",
	98: "STORAGE_VOL_GET_INFO", 99: "STORAGE_VOL_GET_XML_DESC", 100: "STORAGE_VOL_GET_PATH",
	110: "CONNECT_GET_URI", 125: "STORAGE_VOL_CREATE_XML_FROM", 149: "CONNECT_IS_SECURE",
	150: "DOMAIN_IS_ACTIVE", 151: "DOMAIN_IS_PERSISTENT", 152: "NETWORK_IS_ACTIVE",
	153: "NETWORK_IS_PERSISTENT", 154: "STORAGE_POOL_IS_ACTIVE", 155: "STORAGE_POOL_IS_PERSISTENT",
	157: "CONNECT_GET_LIB_VERSION", 196: "DOMAIN_CREATE_WITH_FLAGS", 199: "DOMAIN_SET_VCPUS_FLAGS",
	204: "DOMAIN_SET_MEMORY_FLAGS", 208: "STORAGE_VOL_UPLOAD", 212: "DOMAIN_GET_STATE",
	231: "DOMAIN_UNDEFINE_FLAGS", 258: "DOMAIN_SHUTDOWN_FLAGS", 260: "STORAGE_VOL_RESIZE",
	264: "DOMAIN_SET_METADATA", 265: "DOMAIN_GET_METADATA", 273: "CONNECT_LIST_ALL_DOMAINS",
	281: "CONNECT_LIST_ALL_STORAGE_POOLS", 282: "STORAGE_POOL_LIST_ALL_VOLUMES",
	283: "CONNECT_LIST_ALL_NETWORKS", 284: "CONNECT_LIST_ALL_INTERFACES",
}

// readOnlyProcs change nothing on the host. A procedure not listed here
// is taken for a state-changing one: a kill point too many costs a run,
// one too few would leave a state unchecked.
var readOnlyProcs = map[uint32]bool{
	1: true, 2: true, 3: true, 4: true, 7: true, 14: true, 15: true, 16: true, 23: true, 24: true,
	43: true, 44: true, 45: true, 46: true, 59: true, 60: true, 66: true, 84: true, 87: true,
	88: true, 89: true, 91: true, 92: true, 95: true, 98: true, 99: true, 100: true, 110: true, 149: true, 150: true,
	151: true, 152: true, 153: true, 154: true, 155: true, 157: true, 212: true, 265: true,
	273: true, 281: true, 282: true, 283: true, 284: true,
}

func procName(proc uint32) string {
	if n, ok := procNames[proc]; ok {
		return n
	}
	return fmt.Sprintf("procedure %d", proc)
}
