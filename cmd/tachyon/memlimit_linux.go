package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// fitAddressSpace tells the garbage collector about an address-space limit
// (ulimit -v). Go reserves address space well beyond its live heap (most
// of a 1 GB limit is taken before the first allocation: see
// bench/MEASUREMENTS.md), and the heap grows in 64 MB arenas, so by
// default (the heap grows to twice what is live before a collection) a
// conversion whose live data would fit dies out of memory. A soft memory
// limit of three quarters of the address space left at start, and at most
// a quarter of the limit, makes the collector work harder instead, before
// the heap gets there. The CLI does this for itself only; the profiler
// never changes a host program's GC.
func fitAddressSpace() {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur > 1<<62 { // unlimited, or as good as
		return
	}
	left := int64(rl.Cur) - addressSpaceUsed()
	limit := int64(rl.Cur / 4)
	if left > 0 {
		limit = min(limit, left/4*3)
	}
	if limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// addressSpaceUsed returns the process's virtual memory size, 0 if unknown.
func addressSpaceUsed() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, err := strconv.ParseInt(strings.Fields(string(b) + " 0")[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
