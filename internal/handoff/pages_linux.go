package handoff

import (
	"os"

	"golang.org/x/sys/unix"
)

var pageSize = os.Getpagesize()

// mapPages maps anonymous private pages for a buffer of capacity at least
// n and returns it empty; false if the system refuses.
func mapPages(n int) ([]byte, bool) {
	size := (max(n, 1) + pageSize - 1) / pageSize * pageSize
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return b[:0], true
}

// unmapPages unmaps b's pages.
func unmapPages(b []byte) { _ = unix.Munmap(b[:cap(b)]) }
