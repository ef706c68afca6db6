package chunked

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gotachyon/profiler/internal/offheap"
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
// TestTruncate: Truncate zeroes what it cuts off, across chunks, and Grow
// takes the kept chunks again instead of new ones.
func TestTruncate(t *testing.T) {
	var a Array[uint64]
	for range 3*Chunk + 5 {
		*a.At(a.Grow()) = 7
	}
	chunks := append([]*[Chunk]uint64(nil), a.chunks...)
	for _, n := range []uint32{2*Chunk + 9, Chunk, Chunk - 3, 0} {
		a.Truncate(n)
		if a.Len() != n {
			t.Fatalf("Len %d after Truncate(%d)", a.Len(), n)
		}
		for i := range uint32(3*Chunk + 5) {
			want := uint64(7)
			if i >= n {
				want = 0
			}
			if got := a.chunks[i/Chunk][i%Chunk]; got != want {
				t.Fatalf("after Truncate(%d): element %d is %d, want %d", n, i, got, want)
			}
		}
	}
	for range 3*Chunk + 5 {
		if p := a.At(a.Grow()); *p != 0 {
			t.Fatalf("Grow gave %d, want 0", *p)
		}
	}
	if len(a.chunks) != len(chunks) {
		t.Fatalf("%d chunks after growing again, want %d", len(a.chunks), len(chunks))
	}
	for i, c := range chunks {
		if a.chunks[i] != c {
			t.Fatalf("chunk %d is new", i)
		}
	}
}

// TestMapped: a Mapped array's chunks lie off the heap, keep their
// elements as the array grows, and come back zero after Release.
func TestMapped(t *testing.T) {
	type rec struct{ id, n uint64 }
	a := Array[rec]{Mapped: true}
	before := offheap.InUse()
	for i := range uint32(2*Chunk + 1) {
		*a.At(a.Grow()) = rec{id: uint64(i), n: ^uint64(0)}
	}
	if runtime.GOOS == "linux" && offheap.InUse() != before+int64(3*Chunk*16) {
		t.Fatalf("%d bytes more off the heap, want the three chunks' %d: a Mapped array's chunks are on the heap", offheap.InUse()-before, 3*Chunk*16)
	}
	mapped := offheap.Mapped()
	for i := range uint32(2*Chunk + 1) {
		if a.At(i).id != uint64(i) {
			t.Fatalf("element %d is %d", i, a.At(i).id)
		}
	}
	a.Release()
	offheap.Settle() // the chunks given back are emptied, then reused
	if a.Len() != 0 || len(a.chunks) != 0 || !a.Mapped {
		t.Fatalf("after Release: len %d, %d chunks, Mapped %v", a.Len(), len(a.chunks), a.Mapped)
	}
	for i := range uint32(2*Chunk + 1) {
		if p := a.At(a.Grow()); *p != (rec{}) {
			t.Fatalf("element %d not zero after Release: %+v", i, *p)
		}
	}
	if runtime.GOOS == "linux" && offheap.Mapped() != mapped {
		t.Fatalf("mapped %d bytes more after Release: the chunks given back were not reused", offheap.Mapped()-mapped)
	}
	a.Release()
	var h Array[*rec] // pointers: on the heap whatever Mapped says
	h.Mapped = true
	*h.At(h.Grow()) = &rec{id: 1}
	h.Release()
}

func Example() {
	type record struct{ id uint64 }
	var recs Array[record]
	i := recs.Grow()
	recs.At(i).id = 42
	fmt.Println(i, recs.At(i).id, recs.Len())
	// Output: 0 42 1
}
