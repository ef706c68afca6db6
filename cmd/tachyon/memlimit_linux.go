package main

import (
	"runtime/debug"
	"syscall"
)

// fitAddressSpace tells the garbage collector about an address-space limit
// (ulimit -v): Go reserves address space well beyond its live heap, and by
// default lets the heap grow to twice what is live before collecting, so a
// conversion whose live data would fit dies out of memory at about a third
// of the limit (280-330 MB of heap under a 1 GB limit). A soft memory limit
// of a quarter of the address space makes the collector work harder
// instead, before the heap gets there. The CLI does this for itself only; the
// profiler never changes a host program's GC.
func fitAddressSpace() {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur > 1<<62 { // unlimited, or as good as
		return
	}
	if limit := int64(rl.Cur / 4); limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}
