package sampler

import (
	"testing"
	"unsafe"
)

// TestRecordSizes: the trace backend's record of a goroutine fits the
// allocator's 80-byte class: what a parked goroutine costs the sampler,
// beside its tables' entries.
func TestRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(tgor{}); n > 80 {
		t.Fatalf("tgor is %d bytes, want at most 80", n)
	}
}
