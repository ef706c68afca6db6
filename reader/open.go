package reader

import (
	"errors"
	"fmt"
	"os"
)

// Open opens the named Tachyon file. On Unix it maps the file into memory
// (see mmap_unix.go); elsewhere, or when mapping fails, it reads the file
// through os.File.ReadAt. Errors name the file.
// A file that is not a regular file (a FIFO, a device) is refused at once.
// A mapped file that is truncated or rewritten while it is read gives
// ErrChanged, never a fault.
func Open(name string) (*File, error) {
	fh, st, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	var f *File
	if data, unmap, ok := mapFile(fh, st.Size()); ok {
		f = &File{data: data, mapped: true, Size: int64(len(data))}
		if err = guard(f.init); err != nil {
			unmap()
			fh.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fh.Close() // the mapping stays valid
		f.closer = closerFunc(unmap)
		return f, nil
	}
	f, err = NewFile(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.closer = fh
	return f, nil
}

// openRegular opens name for reading if it is a regular file. The check
// comes before the open, which would wait for a FIFO's writer, and again
// after it, on what was opened.
func openRegular(name string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, st.Mode().Type())
	}
	fh, err := os.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = fh.Stat(); err != nil || !st.Mode().IsRegular() {
		fh.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, st.Mode().Type())
		}
		return nil, nil, err
	}
	return fh, st, nil
}

// ErrNotRegular is returned by Open for a FIFO, a device or a directory.
var ErrNotRegular = errors.New("not a regular file")

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
