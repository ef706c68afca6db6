package writer

import (
	"testing"
	"unsafe"
)

// TestThreadSize: a thread's record fits the allocator's 48-byte class, so
// that a million parked goroutines' threads cost 48 MB, not 64.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 48 {
		t.Fatalf("Thread is %d bytes, want at most 48", n)
	}
}
