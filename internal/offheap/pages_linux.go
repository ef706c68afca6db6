package offheap

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// mapRegion maps size bytes of anonymous private pages, nil if the system
// refuses.
func mapRegion(size uintptr) unsafe.Pointer {
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil || len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// empty returns the pages of a region to the system: they read as zeros
// when next touched. A region the system will not empty is zeroed here.
func empty(p unsafe.Pointer, size uintptr) {
	b := unsafe.Slice((*byte)(p), size)
	if unix.Madvise(b, unix.MADV_DONTNEED) != nil {
		clear(b)
	}
}
