package segment

import (
	"testing"
	"unsafe"
)

// TestThreadSize holds a handle at 64 bytes, a size class of its own: one
// per live goroutine.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 64 {
		t.Errorf("Thread is %d bytes", n)
	}
}
