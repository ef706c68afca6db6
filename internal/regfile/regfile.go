package regfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is returned for a FIFO, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// FS is where a file is opened: the whole file system (OS) or an *os.Root.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

// OS is the whole file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// Open opens name in fsys for reading if it is a regular file. It checks
// before opening (opening a FIFO waits for its writer), opens non-blocking
// where it can, should a FIFO replace the file in between, and checks again
// what it opened.
func Open(fsys FS, name string) (*os.File, fs.FileInfo, error) {
	st, err := fsys.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(name, st)
	}
	f, err := fsys.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(name, st)
		}
		return nil, nil, err
	}
	return f, st, nil
}

// NotRegular returns the error of a name that is st instead of a regular
// file, saying what it is in words; it wraps ErrNotRegular.
func NotRegular(name string, st fs.FileInfo) error { return notRegular(name, st) }

// notRegular says what name is instead of a regular file, in words.
func notRegular(name string, st fs.FileInfo) error {
	return fmt.Errorf("%s: %w: it is %s", name, ErrNotRegular, kind(st.Mode().Type()))
}

// kind names a file type that is not a regular file.
func kind(t fs.FileMode) string {
	switch {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file (" + t.String() + ")"
}
