package sampler

import (
	"testing"
	"unsafe"

	"github.com/gotachyon/profiler/internal/chunked"
)

// TestRecordSizes: the trace backend's record of a goroutine, which lies
// in a chunk of them, is 40 bytes, its handle's number included: what a
// parked goroutine costs the sampler.
func TestRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(tgor{}); n > 40 {
		t.Fatalf("tgor is %d bytes, want at most 40", n)
	}
	// The records' chunks are mapped off the heap; the handles of a sink
	// without Streams lie on it (handles).
	if n := unsafe.Sizeof([chunked.Chunk]tgor{}); n%osPage != 0 {
		t.Fatalf("a chunk of %d records is %d bytes: want a whole number of %d-byte pages", chunked.Chunk, n, osPage)
	}
	if n := unsafe.Sizeof([chunked.Chunk]Goroutine{}); n%heapPage != 0 {
		t.Fatalf("a chunk of %d handles is %d bytes: want a whole number of %d-byte pages", chunked.Chunk, n, heapPage)
	}
}

// heapPage is the Go heap's page: a large object takes a whole number of
// them. osPage is the system's, in which package offheap maps.
const (
	heapPage = 8192
	osPage   = 4096
)
