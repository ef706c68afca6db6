//go:build !linux

package offheap

import "unsafe"

const pageSize = 4096

// mapRegion maps nothing here: Make allocates on the heap.
func mapRegion(uintptr) unsafe.Pointer { return nil }

// empty is never called: no region is mapped.
func empty(unsafe.Pointer, uintptr) {}
