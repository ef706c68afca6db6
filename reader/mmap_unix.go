//go:build unix

package reader

import (
	"os"

	"golang.org/x/sys/unix"
)

// hugePageThreshold is the size above which the mapping asks for
// transparent huge pages.
const hugePageThreshold = 32 << 20

// mapFile maps fh read-only, advising the kernel that it will be read
// sequentially and soon (MAP_POPULATE pre-faults it on Linux). ok is false
// when the file cannot be mapped (empty, too large, or mmap fails); the
// caller then reads it instead.
func mapFile(fh *os.File, size int64) (data []byte, unmap func() error, ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	data, err := unix.Mmap(int(fh.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, false
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	_ = unix.Madvise(data, unix.MADV_WILLNEED)
	if size > hugePageThreshold {
		adviseHuge(data)
	}
	return data, func() error { return unix.Munmap(data) }, true
}
