package stacktab

import (
	"errors"
	"testing"

	"github.com/gotachyon/profiler/export/limits"
)

// id returns tab.ID(stack), failing the test on a limit error.
func id(t *testing.T, tab *Table, stack []uint32) uint32 {
	t.Helper()
	n, err := tab.ID(stack)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTable(t *testing.T) {
	var tab Table
	a := []uint32{1, 2, 3}
	if id(t, &tab, a) != 0 || id(t, &tab, []uint32{1, 2}) != 1 || id(t, &tab, []uint32{1, 2, 3}) != 0 || id(t, &tab, nil) != 2 {
		t.Fatal("ids not dense in order of first appearance")
	}
	a[0] = 9 // the table keeps its own copy
	if got := tab.Stack(0); got[0] != 1 || tab.Len() != 3 {
		t.Fatalf("stack 0 = %v, len %d", got, tab.Len())
	}
	if n := testing.AllocsPerRun(100, func() { tab.ID([]uint32{1, 2}) }); n != 0 {
		t.Fatalf("%v allocs for a known stack", n)
	}
}

func TestTableLimit(t *testing.T) {
	tab := Table{Frames: Budget{Limit: 5}}
	id(t, &tab, []uint32{1, 2, 3})
	id(t, &tab, []uint32{1, 2})
	id(t, &tab, []uint32{1, 2, 3}) // known: no new frames
	var le *limits.Error
	if _, err := tab.ID([]uint32{4}); !errors.As(err, &le) || le.Limit != limits.StackFrames || le.Max != 5 || le.Value != 6 {
		t.Fatalf("past the limit: %v", err)
	}
}

// TestTableKeyNotAliased: the key a new stack is stored under is its own,
// so that a caller reusing its slice (the reader does) changes no entry.
func TestTableKeyNotAliased(t *testing.T) {
	var tab Table
	a := []uint32{1, 2, 3}
	id(t, &tab, a)
	a[0] = 9
	if id(t, &tab, []uint32{1, 2, 3}) != 0 || id(t, &tab, a) != 1 {
		t.Fatal("a stack's key changed with the caller's slice")
	}
}

// BenchmarkIDDeep looks up two stacks of 65,536 frames (the reader's
// limit) in turn, as a file of alternating POP_PUSH records makes an
// exporter do for each record.
func BenchmarkIDDeep(b *testing.B) {
	var tab Table
	x, y := make([]uint32, 1<<16), make([]uint32, 1<<16)
	y[0] = 1
	for b.Loop() {
		tab.ID(x)
		tab.ID(y)
	}
}

// TestCache: a Cache holds stacks of CacheMinDepth frames or more under
// keys of their own (a caller reusing its slice, as the reader does,
// changes no entry), and starts afresh past CacheFrames frames.
func TestCache(t *testing.T) {
	var c Cache
	short := make([]uint32, CacheMinDepth-1)
	c.Put(short, 1)
	if _, ok := c.Get(short); ok {
		t.Fatal("a stack shallower than CacheMinDepth was held")
	}
	a := make([]uint32, CacheMinDepth)
	c.Put(a, 7)
	a[0] = 9 // the reader reuses its slice for the next sample
	if _, ok := c.Get(a); ok {
		t.Fatal("a stack's key changed with the caller's slice")
	}
	a[0] = 0
	if id, ok := c.Get(a); !ok || id != 7 {
		t.Fatalf("Get = %d, %v; want 7, true", id, ok)
	}
	b := make([]uint32, CacheMinDepth)
	for i := range CacheFrames / CacheMinDepth {
		b[0] = uint32(i + 1)
		c.Put(b, uint32(i))
	}
	if _, ok := c.Get(a); ok {
		t.Fatal("the cache held more than CacheFrames frames")
	}
	if id, ok := c.Get(b); !ok || id != CacheFrames/CacheMinDepth-1 {
		t.Fatalf("the last stack put: Get = %d, %v", id, ok)
	}
}
