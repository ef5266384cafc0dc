//go:build cgo && libvirt_dlopen

package conn

import (
	"errors"
	"fmt"
	"strings"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/visible"
)

// Classify returns the class of the first libvirt.Error in err's chain,
// and "" when there is none (errors of site's own making are not
// classified and never retried).
func Classify(err error) backends.Class {
	var lerr libvirt.Error
	if !errors.As(err, &lerr) {
		return ""
	}
	return classifyLibvirt(lerr)
}

func classifyLibvirt(e libvirt.Error) backends.Class {
	switch e.Code {
	// The connection to the daemon is gone or never came up, or the RPC
	// layer failed (daemon restarted, socket closed, keepalive timeout).
	case libvirt.ERR_NO_CONNECT, libvirt.ERR_INVALID_CONN, libvirt.ERR_RPC:
		return backends.ClassTransient
	// The call or the guest agent did not answer in time: the daemon or
	// guest is busy, not refusing.
	case libvirt.ERR_OPERATION_TIMEOUT, libvirt.ERR_AGENT_UNRESPONSIVE:
		return backends.ClassTransient
	case libvirt.ERR_SYSTEM_ERROR:
		// An OS error. On the connection (RPC and remote driver: "Cannot
		// recv data", "Failed to connect socket", "End of file while
		// reading data") the daemon went away and may come back. Anywhere
		// else (storage: no space, permission denied on a file) it is the
		// host's state, which retrying does not change.
		// The daemon's own helpers are reached over sockets too: a
		// virtlogd or virtlockd that is not running is the host's setup,
		// which the daemon answered about, not a daemon that went away.
		if helperDaemon(e.Message) {
			return backends.ClassInvalid
		}
		if e.Domain == libvirt.FROM_RPC || e.Domain == libvirt.FROM_REMOTE || connLost(e.Message) {
			return backends.ClassTransient
		}
		return backends.ClassInvalid
	case libvirt.ERR_INTERNAL_ERROR:
		// The remote driver reports a lost connection this way too.
		if connLost(e.Message) {
			return backends.ClassTransient
		}
		return backends.ClassInvalid

	case libvirt.ERR_AUTH_FAILED, libvirt.ERR_AUTH_CANCELLED, libvirt.ERR_AUTH_UNAVAILABLE, libvirt.ERR_ACCESS_DENIED:
		return backends.ClassAuth

	// The object is in a state that refuses the call ("domain is already
	// running", "network is not active"), or already exists.
	case libvirt.ERR_OPERATION_INVALID, libvirt.ERR_DOM_EXIST, libvirt.ERR_NETWORK_EXIST,
		libvirt.ERR_STORAGE_VOL_EXIST, libvirt.ERR_RESOURCE_BUSY:
		return backends.ClassConflict
	case libvirt.ERR_OPERATION_FAILED:
		// OPERATION_FAILED is generic; the state conflicts libvirt
		// reports with it ("domain ... already exists", "is already
		// active", "is in use") are conflicts, the rest is not knowable
		// as anything better than invalid.
		if stateConflict(e.Message) {
			return backends.ClassConflict
		}
		return backends.ClassInvalid

	case libvirt.ERR_XML_ERROR, libvirt.ERR_XML_DETAIL, libvirt.ERR_XML_INVALID_SCHEMA,
		libvirt.ERR_INVALID_ARG, libvirt.ERR_ARGUMENT_UNSUPPORTED, libvirt.ERR_CONFIG_UNSUPPORTED,
		libvirt.ERR_NO_SUPPORT, libvirt.ERR_OPERATION_UNSUPPORTED:
		return backends.ClassInvalid
	}
	return backends.ClassInvalid
}

// connLost reports whether a libvirt message says the connection to the
// daemon broke (remote driver and RPC wording, libvirt 8-11).
func connLost(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"cannot recv data", "cannot write data", "end of file while reading data",
		"failed to connect socket", "client socket is closed", "connection reset by peer", "broken pipe",
		"keepalive timeout"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// helperDaemon reports whether a message is about one of libvirtd's
// helper daemons (its log and lock managers) rather than libvirtd.
func helperDaemon(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "virtlogd") || strings.Contains(m, "virtlockd")
}

// stateConflict reports whether an ERR_OPERATION_FAILED message names a
// state the object is in rather than a fault of the request.
func stateConflict(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"already exists", "already active", "already running", "is in use", "is not running", "not active", "is active"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func advice(c backends.Class) string {
	switch c {
	case backends.ClassConflict:
		return "the host's current state refuses this change; run site diff to re-observe, and check for another hand changing this host (virsh)"
	case backends.ClassAuth:
		return "libvirt refused this user; check the connection URI and that this user may use the daemon's socket (polkit, the libvirt group, SASL)"
	case backends.ClassTransient:
		return "the libvirt daemon could not be reached or did not answer; calls safe to repeat were retried, then site gave up; re-run when the daemon answers"
	default:
		return "libvirt refused the request; fix what its message names in the spec or on the host"
	}
}

// HostError is a classified libvirt failure as the user sees it: the
// step's own context, libvirt's message (not the binding's virError(...)
// form), its class, and what to do.
type HostError struct {
	Class backends.Class
	Err   error // the cause; its chain holds the libvirt.Error
}

func (e *HostError) Error() string {
	msg := e.Err.Error()
	what := advice(e.Class)
	var lerr libvirt.Error
	if errors.As(e.Err, &lerr) && lerr.Message != "" {
		// Say what libvirt said, in its words, escaped on one line: it
		// quotes names and XML of the host's, which may hold a newline
		// that would start a line of a workflow log (::error::).
		msg = strings.ReplaceAll(msg, lerr.Error(), visible.Short(lerr.Message))
		if keepAliveClosed(lerr.Message) {
			what = keepAliveAdvice
		}
	}
	return fmt.Sprintf("%s (libvirt %s error: %s)", msg, e.Class, what)
}

// keepAliveAdvice is what to do about a call keepalive failed (see
// keepalive.go). Observation reports the host given up on instead
// (SilentHostError): its retry meets that.
const keepAliveAdvice = "the libvirt daemon stopped answering site's keepalive probes, so site gave up on this host for the run; " +
	"check that it runs and is not stopped or hung (virsh version answers at once from a daemon that is well), and the network or SSH tunnel to the host; " +
	"once it answers, site diff shows whether this call changed anything"

// keepAliveClosed reports whether a libvirt message says keepalive
// closed the connection.
func keepAliveClosed(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "keepalive timeout")
}

func (e *HostError) Unwrap() error { return e.Err }

// Explain classifies err for the user; an error without a libvirt.Error,
// or one already explained, is returned as it is.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	var he *HostError
	if errors.As(err, &he) {
		return err
	}
	c := Classify(err)
	if c == "" {
		return err
	}
	return &HostError{Class: c, Err: err}
}

// libvirtError shows a libvirt error as libvirt's own message; the Go
// binding's virError(Code=38, Domain=7, Message='...') means nothing to
// a user; escaped on one line (visible.Short). Unwrap keeps the code.
type libvirtError struct{ e libvirt.Error }

func (l libvirtError) Error() string { return visible.Short(l.e.Message) }

func (l libvirtError) Unwrap() error { return l.e }

// Plain turns a libvirt error into one that shows libvirt's own message
// (libvirtError); others pass. Observation uses it for what it reports.
func Plain(err error) error {
	if lerr, ok := err.(libvirt.Error); ok && lerr.Message != "" {
		return libvirtError{lerr}
	}
	return err
}

// IsCode reports whether err is a libvirt error with code.
func IsCode(err error, code libvirt.ErrorNumber) bool {
	var lerr libvirt.Error
	return errors.As(err, &lerr) && lerr.Code == code
}
