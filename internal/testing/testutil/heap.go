package testutil

import "runtime/metrics"

// HeapAllocBytes returns the bytes the process has allocated on the heap
// since it began (runtime/metrics' /gc/heap/allocs:bytes).
func HeapAllocBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
