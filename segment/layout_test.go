package segment

import (
	"testing"
	"unsafe"
)

// TestThreadSize holds a handle at 48 bytes, a size class of its own: one
// per live goroutine.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 48 {
		t.Errorf("Thread is %d bytes", n)
	}
}
