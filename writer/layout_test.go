package writer

import (
	"testing"
	"unsafe"
)

// TestThreadSize: a thread's record fits the allocator's 64-byte class, so
// that a million parked goroutines' threads cost 64 MB, not 96.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 64 {
		t.Fatalf("Thread is %d bytes, want at most 64", n)
	}
}
