//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/compiler/visible"
)

// libvirtError shows a libvirt error as libvirt's own message; the Go
// binding's virError(Code=38, Domain=7, Message='...') means nothing to
// a user; escaped on one line (visible.Short). Unwrap keeps the code.
type libvirtError struct{ e libvirt.Error }

func (l libvirtError) Error() string { return visible.Short(l.e.Message) }

func (l libvirtError) Unwrap() error { return l.e }

// plainError turns a libvirt error into a libvirtError; others pass.
func plainError(err error) error {
	if lerr, ok := err.(libvirt.Error); ok && lerr.Message != "" {
		return libvirtError{lerr}
	}
	return err
}

// isCode reports whether err is a libvirt error with code.
func isCode(err error, code libvirt.ErrorNumber) bool {
	var lerr libvirt.Error
	return errors.As(err, &lerr) && lerr.Code == code
}
