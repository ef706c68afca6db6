package writer

import (
	"testing"
	"unsafe"

	"github.com/gotachyon/profiler/internal/chunked"
)

// TestThreadSize: a numbered thread's record is 32 bytes, so that a
// million parked goroutines' threads cost 32 MB off the heap, in chunks
// of whole pages; a handle, with its Writer beside the record, fits the
// allocator's 48-byte class.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(thread{}); n > 32 {
		t.Fatalf("thread is %d bytes, want at most 32", n)
	}
	if n := unsafe.Sizeof([chunked.Chunk]thread{}); n%4096 != 0 {
		t.Fatalf("a chunk of %d records is %d bytes: want a whole number of 4096-byte pages", chunked.Chunk, n)
	}
	if n := unsafe.Sizeof(Thread{}); n > 48 {
		t.Fatalf("Thread is %d bytes, want at most 48", n)
	}
}
