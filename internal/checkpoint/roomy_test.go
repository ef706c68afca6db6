package checkpoint

import (
	"math/bits"
	"testing"
)

// TestRoomyBuffersGoingRound: tables that grow up to a tenth at each
// checkpoint, written into three buffers going round (the checkpoint's,
// the mark handed over, the syncing goroutine's), reallocate about as
// often as they double, not at each checkpoint: roomy judges a buffer by
// the last tables' length, not by what it held when it was last used.
func TestRoomyBuffersGoingRound(t *testing.T) {
	var ring [3][]byte
	n, last, allocs := 1000, 0, 0
	for i := range 60 {
		b := roomy(ring[i%3], last)
		if cap(b) < n {
			allocs++ // appendTables' append grows it
			b = make([]byte, 0, n+n/4)
		} else if cap(b) != cap(ring[i%3]) {
			allocs++
		}
		ring[i%3], last = b[:n], n
		n += n / 10
	}
	doublings := bits.Len(uint(n / 1000))
	if allocs > 3*(doublings+1) {
		t.Errorf("%d allocations while the tables doubled %d times, want at most %d", allocs, doublings, 3*(doublings+1))
	}
}
