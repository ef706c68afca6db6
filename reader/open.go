package reader

import (
	"fmt"
	"os"
)

// Open opens the named Tachyon file. On Unix it maps the file into memory
// (see mmap_unix.go); elsewhere, or when mapping fails, it reads the file
// through os.File.ReadAt. Errors name the file.
func Open(name string) (*File, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	var f *File
	if data, unmap, ok := mapFile(fh, st.Size()); ok {
		f, err = NewFileBytes(data)
		if err != nil {
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

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
