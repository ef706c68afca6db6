package offheap

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

type rec struct {
	id    uint64
	state [3]uint16
	ok    bool
}

// TestReuse: memory given back comes back zero for the next request of
// its size, at the same address, without mapping more.
func TestReuse(t *testing.T) {
	s := Make[rec](1000)
	if len(s) != 1000 || cap(s) != 1000 {
		t.Fatalf("len %d cap %d, want 1000", len(s), cap(s))
	}
	for i := range s {
		if s[i] != (rec{}) {
			t.Fatalf("element %d not zero", i)
		}
		s[i] = rec{id: uint64(i) + 1, state: [3]uint16{1, 2, 3}, ok: true}
	}
	onLinux := runtime.GOOS == "linux"
	before := Mapped()
	if onLinux && before == 0 {
		t.Fatal("nothing mapped on Linux")
	}
	p := unsafe.SliceData(s)
	inUse := InUse()
	Free(s)
	pages := int64((1000*unsafe.Sizeof(rec{}) + pageSize - 1) / pageSize * pageSize)
	if onLinux && InUse() != inUse-pages {
		t.Fatalf("in use %d bytes, then %d after giving back %d", inUse, InUse(), pages)
	}
	Settle()
	s = Make[rec](1000)
	if onLinux && unsafe.SliceData(s) != p {
		t.Fatal("a region given back was not reused")
	}
	if Mapped() != before {
		t.Fatalf("mapped %d bytes, then %d: a region given back was mapped again", before, Mapped())
	}
	for i := range s {
		if s[i] != (rec{}) {
			t.Fatalf("element %d not zero after reuse: %+v", i, s[i])
		}
	}
	Free(s)
	Free(s) // a second time: kept once
	Settle()
	a, b := Make[rec](1000), Make[rec](1000)
	if unsafe.SliceData(a) == unsafe.SliceData(b) {
		t.Fatal("a region given back twice was given out twice")
	}
	Free(a)
	Free(b)
}

// TestHeap: a type with pointers, an empty request and a slice the heap
// holds are the heap's business: Make maps nothing for them and Free
// leaves them alone.
func TestHeap(t *testing.T) {
	before := Mapped()
	ptrs := Make[struct {
		n int
		p *int
	}](100)
	if len(ptrs) != 100 {
		t.Fatalf("len %d, want 100", len(ptrs))
	}
	strs := Make[[2]string](10)
	if Make[int](0) != nil {
		t.Fatal("Make(0) is not nil")
	}
	if Mapped() != before {
		t.Fatalf("mapped %d bytes for types with pointers", Mapped()-before)
	}
	heap := make([]uint64, 512)
	heap[7] = 7
	Free(heap)
	Free(ptrs)
	Free(strs)
	Free[int](nil)
	if heap[7] != 7 {
		t.Fatal("Free touched a slice of the heap")
	}
}

// TestConcurrent: callers on several goroutines share the regions.
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				s := Make[uint32](1024 * (1 + i%3))
				for j := range s {
					if s[j] != 0 {
						t.Errorf("goroutine %d: element %d not zero", g, j)
						return
					}
					s[j] = uint32(g)
				}
				Free(s)
			}
		})
	}
	wg.Wait()
}

// TestPointerFree: the types that may live off the heap.
func TestPointerFree(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{uint32(0), true},
		{rec{}, true},
		{[4]struct{ a, b int32 }{}, true},
		{[0]*int{}, true},
		{struct{}{}, true},
		{"", false},
		{[]int(nil), false},
		{struct{ m map[int]int }{}, false},
		{[2]any{}, false},
		{struct {
			a int
			f func()
		}{}, false},
		{unsafe.Pointer(nil), false},
	} {
		if got := pointerFree(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("pointerFree(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

func Example() {
	type record struct{ id, seen uint64 }
	recs := Make[record](1 << 16) // off the heap on Linux
	recs[42] = record{id: 42, seen: 1}
	fmt.Println(len(recs), recs[42].id, recs[43].id)
	Free(recs) // nothing may use recs from here on
	// Output: 65536 42 0
}
