//go:build cgo && libvirt_dlopen

package conn

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
)

func TestClassifyLibvirtError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want backends.Class
	}{
		{"not a libvirt error", errors.New("parse domain XML: EOF"), ""},
		{"nil", nil, ""},
		{"no connection", libvirt.Error{Code: libvirt.ERR_NO_CONNECT, Domain: libvirt.FROM_REMOTE, Message: "no connection driver available"}, backends.ClassTransient},
		{"invalid connection", libvirt.Error{Code: libvirt.ERR_INVALID_CONN, Message: "invalid connection pointer"}, backends.ClassTransient},
		{"rpc", libvirt.Error{Code: libvirt.ERR_RPC, Domain: libvirt.FROM_RPC, Message: "Unable to read from monitor"}, backends.ClassTransient},
		{"system error on the rpc layer", libvirt.Error{Code: libvirt.ERR_SYSTEM_ERROR, Domain: libvirt.FROM_RPC, Message: "Failed to connect socket to '/run/x': No such file or directory"}, backends.ClassTransient},
		// The daemon answered: its log manager is not running, which
		// retrying does not change ("the daemon could not be reached"
		// sent the user looking at the wrong daemon).
		{"virtlogd not running", libvirt.Error{Code: libvirt.ERR_SYSTEM_ERROR, Domain: libvirt.FROM_RPC, Message: "Failed to connect socket to '/run/user/0/libvirt/virtlogd-sock': No such file or directory"}, backends.ClassInvalid},
		{"cannot recv data, any domain", libvirt.Error{Code: libvirt.ERR_SYSTEM_ERROR, Domain: libvirt.FROM_NONE, Message: "Cannot recv data: Connection reset by peer"}, backends.ClassTransient},
		{"internal error: end of file", libvirt.Error{Code: libvirt.ERR_INTERNAL_ERROR, Domain: libvirt.FROM_RPC, Message: "internal error: End of file while reading data: Input/output error"}, backends.ClassTransient},
		{"system error in storage", libvirt.Error{Code: libvirt.ERR_SYSTEM_ERROR, Domain: libvirt.FROM_STORAGE, Message: "cannot allocate 1073741824 bytes in file '/var/lib/x.img': No space left on device"}, backends.ClassInvalid},
		{"timeout", libvirt.Error{Code: libvirt.ERR_OPERATION_TIMEOUT, Domain: libvirt.FROM_QEMU, Message: "Timed out during operation: cannot acquire state change lock"}, backends.ClassTransient},
		{"agent unresponsive", libvirt.Error{Code: libvirt.ERR_AGENT_UNRESPONSIVE, Domain: libvirt.FROM_QEMU, Message: "Guest agent is not responding"}, backends.ClassTransient},
		{"auth failed", libvirt.Error{Code: libvirt.ERR_AUTH_FAILED, Domain: libvirt.FROM_AUTH, Message: "authentication failed: polkit"}, backends.ClassAuth},
		{"auth cancelled", libvirt.Error{Code: libvirt.ERR_AUTH_CANCELLED, Message: "authentication cancelled"}, backends.ClassAuth},
		{"auth unavailable", libvirt.Error{Code: libvirt.ERR_AUTH_UNAVAILABLE, Message: "authentication unavailable: no polkit agent available"}, backends.ClassAuth},
		{"access denied", libvirt.Error{Code: libvirt.ERR_ACCESS_DENIED, Domain: libvirt.FROM_ACCESS, Message: "access denied: 'write' on domain"}, backends.ClassAuth},
		{"operation invalid", libvirt.Error{Code: libvirt.ERR_OPERATION_INVALID, Domain: libvirt.FROM_DOMAIN, Message: "Requested operation is not valid: domain is already running"}, backends.ClassConflict},
		{"domain exists", libvirt.Error{Code: libvirt.ERR_DOM_EXIST, Message: "domain 'web' already exists with uuid 1234"}, backends.ClassConflict},
		{"network exists", libvirt.Error{Code: libvirt.ERR_NETWORK_EXIST, Message: "network 'lan' already exists"}, backends.ClassConflict},
		{"volume exists", libvirt.Error{Code: libvirt.ERR_STORAGE_VOL_EXIST, Message: "storage volume 'web-root' exists already"}, backends.ClassConflict},
		{"operation failed: already exists", libvirt.Error{Code: libvirt.ERR_OPERATION_FAILED, Message: "operation failed: domain 'web' already exists with uuid 1234"}, backends.ClassConflict},
		{"operation failed: other", libvirt.Error{Code: libvirt.ERR_OPERATION_FAILED, Message: "operation failed: failed to resize volume"}, backends.ClassInvalid},
		{"xml", libvirt.Error{Code: libvirt.ERR_XML_ERROR, Domain: libvirt.FROM_XML, Message: "XML error: missing name"}, backends.ClassInvalid},
		{"xml detail", libvirt.Error{Code: libvirt.ERR_XML_DETAIL, Message: "at line 3: Opening and ending tag mismatch"}, backends.ClassInvalid},
		{"invalid arg", libvirt.Error{Code: libvirt.ERR_INVALID_ARG, Message: "invalid argument: unsupported flags (0x1)"}, backends.ClassInvalid},
		{"config unsupported", libvirt.Error{Code: libvirt.ERR_CONFIG_UNSUPPORTED, Domain: libvirt.FROM_QEMU, Message: "unsupported configuration: kvm not available"}, backends.ClassInvalid},
		{"no support", libvirt.Error{Code: libvirt.ERR_NO_SUPPORT, Message: "this function is not supported by the connection driver"}, backends.ClassInvalid},
		{"unknown code", libvirt.Error{Code: libvirt.ERR_NO_DOMAIN, Message: "Domain not found"}, backends.ClassInvalid},
		{"wrapped", fmt.Errorf("look up domain web on qemu:///system: %w", libvirt.Error{Code: libvirt.ERR_RPC, Message: "Cannot recv data"}), backends.ClassTransient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHostErrorSaysWhatLibvirtSaid: a classified error keeps the step's
// context and libvirt's own words, adds the class and what to do, and
// keeps the libvirt error in the chain.
func TestHostErrorSaysWhatLibvirtSaid(t *testing.T) {
	cause := libvirt.Error{Code: libvirt.ERR_DOM_EXIST, Domain: libvirt.FROM_DOMAIN, Message: "domain 'web' already exists with uuid 1234"}
	err := Explain(fmt.Errorf("define domain web on test:///default: %w", cause))
	msg := err.Error()
	for _, want := range []string{
		"define domain web on test:///default: domain 'web' already exists with uuid 1234",
		"libvirt conflict error",
		"run site diff to re-observe",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("got %q, want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "virError(") {
		t.Errorf("got %q, want libvirt's message, not the binding's virError form", msg)
	}
	if !IsCode(err, libvirt.ERR_DOM_EXIST) {
		t.Errorf("IsCode(%q, ERR_DOM_EXIST) is false, want the libvirt error kept in the chain", msg)
	}
	if again := Explain(err); again != err {
		t.Errorf("explaining twice gave %q, want %q", again, err)
	}
	own := errors.New("network lan: cidr \"x\" is not an IPv4 prefix")
	if got := Explain(own); got != own {
		t.Errorf("got %q, want site's own error unchanged", got)
	}
}

// TestLibvirtMessagesAreEscaped: libvirt's messages quote the host's
// names and XML, so a newline in them must not reach the output as a
// line of its own (a workflow command, ::error::, in a check's log);
// issue 27 finding 3.
func TestLibvirtMessagesAreEscaped(t *testing.T) {
	lerr := libvirt.Error{Code: libvirt.ERR_OPERATION_FAILED, Domain: libvirt.FROM_DOMAIN, Message: "operation failed: domain 'x\n::error::forged' already exists"}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"a step's host error", &HostError{Class: backends.ClassInvalid, Err: fmt.Errorf("define domain: %w", lerr)}},
		{"an observation's plain error", Plain(lerr)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.err.Error()
			if strings.Contains(got, "\n") || !strings.Contains(got, `x\n::error::forged`) {
				t.Errorf("Error() = %q, want libvirt's message escaped on one line", got)
			}
		})
	}
}
