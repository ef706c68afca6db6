package chunked

import (
	"fmt"
	"testing"
)

// TestArray: elements keep their addresses and values as the array grows
// past several chunks.
func TestArray(t *testing.T) {
	var a Array[[3]uint64]
	var ptrs []*[3]uint64
	for i := range uint32(3*Chunk + 5) {
		if got := a.Grow(); got != i {
			t.Fatalf("Grow returned %d, want %d", got, i)
		}
		p := a.At(i)
		if *p != [3]uint64{} {
			t.Fatalf("element %d not zero: %v", i, *p)
		}
		p[0] = uint64(i)
		ptrs = append(ptrs, p)
	}
	if a.Len() != 3*Chunk+5 {
		t.Fatalf("Len %d, want %d", a.Len(), 3*Chunk+5)
	}
	for i, p := range ptrs {
		if a.At(uint32(i)) != p || p[0] != uint64(i) {
			t.Fatalf("element %d moved or changed", i)
		}
	}
}

// Example: records numbered from 0, found by number.
func Example() {
	type record struct{ id uint64 }
	var recs Array[record]
	i := recs.Grow()
	recs.At(i).id = 42
	fmt.Println(i, recs.At(i).id, recs.Len())
	// Output: 0 42 1
}
