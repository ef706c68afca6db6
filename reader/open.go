package reader

import (
	"fmt"

	"github.com/gotachyon/profiler/internal/regfile"
)

// Open opens the named Tachyon file. On Unix it maps the file into memory
// (see mmap_unix.go); elsewhere, or when mapping fails, it reads the file
// through os.File.ReadAt. Errors name the file.
// A file that is not a regular file (a FIFO, a device) is refused at once.
// A mapped file that is truncated or rewritten while it is read gives
// ErrChanged, never a fault.
func Open(name string) (*File, error) {
	fh, st, err := regfile.Open(regfile.OS, name)
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

// ErrNotRegular is returned, wrapped, for a path that is a FIFO, a
// device, a socket or a directory: by Open, and wherever this module
// refuses a path that is not a regular file (nytprof.SourceFiles, the
// profiler's output).
var ErrNotRegular = regfile.ErrNotRegular

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
