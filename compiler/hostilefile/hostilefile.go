// Package hostilefile opens and reads files that anyone may have put in
// place: a pull request's, or a planted lock, journal or git file. Such
// a file is never read through a symbolic link (it could point at a
// runner's secret or at /dev/zero), only if it is a regular file (a FIFO
// must not block, a device must not stream forever), and only up to a
// bound. Its errors never quote the file's bytes.
package hostilefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrLink is a path that is a symbolic link.
var ErrLink = errors.New("a symbolic link")

// ErrNotRegular is a path that is a FIFO, a device or a directory.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is a file larger than the bound it was read with.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Limit) }

// Open opens the regular file at path for reading without following a
// symbolic link: ErrLink or ErrNotRegular when it is not one, else the
// error of the open.
func Open(path string) (*os.File, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, ErrLink
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path (Open), at most limit bytes: a
// larger file is a *TooLargeError, never read into memory whole.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return b, nil
}

// Refused reports whether err is one of Open's or Read's refusals of
// the file itself (a link, not regular, too large), not a failure to
// reach it.
func Refused(err error) bool {
	var big *TooLargeError
	return errors.Is(err, ErrLink) || errors.Is(err, ErrNotRegular) || errors.As(err, &big)
}
