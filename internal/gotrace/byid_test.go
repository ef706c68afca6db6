package gotrace

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/gotachyon/profiler/internal/offheap"
)

// TestGTable: under random adds and deletes (consecutive ids as the
// runtime gives them, ids far apart, id 0, ids that share a home slot),
// the table finds what a map does, keeps a record's address while it
// lives, and reuses the records of ended goroutines.
func TestGTable(t *testing.T) {
	var tab gTable
	defer tab.Release()
	want := map[uint64]*gState{}
	rng := rand.New(rand.NewPCG(1, 2))
	next := uint64(0)
	peak := 0
	newID := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Uint64()
		case 1:
			next += uint64(rng.IntN(3)) // 0 and repeats included, added only if new
			return next
		}
		next++
		return next
	}
	check := func(step int) {
		t.Helper()
		if tab.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, tab.Len(), len(want))
		}
		for id, g := range want {
			if got := tab.Find(id); got != g || got.id != id {
				t.Fatalf("step %d: Find(%d) = %p, want %p", step, id, got, g)
			}
		}
	}
	for step := range 20000 {
		if len(want) > 0 && rng.IntN(5) < 2 {
			for id, g := range want { // a random one: map order
				tab.Delete(g)
				delete(want, id)
				if tab.Find(id) != nil {
					t.Fatalf("step %d: %d found after Delete", step, id)
				}
				break
			}
		} else if id := newID(); want[id] == nil {
			if tab.Find(id) != nil {
				t.Fatalf("step %d: %d found before Add", step, id)
			}
			g := tab.Add(id, false)
			if g.id != id || g.state != 0 || g.user != 0 {
				t.Fatalf("step %d: Add(%d) = %+v", step, id, *g)
			}
			g.user = uint32(step)
			want[id] = g
			peak = max(peak, len(want))
		}
		if step%997 == 0 {
			check(step)
		}
	}
	check(-1)
	if int(tab.recs.Len()) != peak {
		t.Fatalf("%d records made, for at most %d live at once", tab.recs.Len(), peak)
	}
}

// TestGTableShared: records whose search passes through a deleted one's
// slot are still found.
func TestGTableShared(t *testing.T) {
	var tab gTable
	defer tab.Release()
	tab.grow()
	// ids with the same home slot, then one with the next home.
	var same []uint64
	for id := uint64(1); len(same) < 5; id++ {
		if tab.home(id) == tab.home(1) {
			same = append(same, id)
		}
	}
	gs := make([]*gState, len(same))
	for i, id := range same {
		gs[i] = addOld(&tab, id)
	}
	tab.Delete(gs[1])
	tab.Delete(gs[0])
	for i, id := range same[2:] {
		if tab.Find(id) != gs[i+2] {
			t.Fatalf("Find(%d) lost after deleting two of its slot", id)
		}
	}
	if g := tab.Add(same[0], false); g != gs[0] {
		t.Fatalf("the record last freed is not reused")
	}
}

// addOld adds goroutine id to tab as one that outlived the newer ones
// young holds: in the index.
func addOld(tab *gTable, id uint64) *gState {
	g := tab.Add(id, false)
	tab.Delete(tab.Add(id^1<<62, false)) // young's next in its slot
	return g
}

// indexed returns how many records the index holds.
func indexed(tab *gTable) int {
	n := 0
	for _, v := range tab.slots {
		if v != 0 {
			n++
		}
	}
	return n
}

// TestGTableYoung: goroutines that end before young's newer ones take
// their slots never reach the index; one that outlives them is found
// there, and an id the index never held is not looked for in it.
func TestGTableYoung(t *testing.T) {
	var tab gTable
	defer tab.Release()
	var gs []*gState
	for id := uint64(1); id <= youngSlots; id++ {
		gs = append(gs, tab.Add(id, false))
	}
	for _, g := range gs {
		tab.Delete(g)
	}
	if n := indexed(&tab); n != 0 || tab.maxOld != 0 {
		t.Fatalf("%d records reached the index (maxOld %d) for goroutines that ended young", n, tab.maxOld)
	}
	old := tab.Add(1000, false)
	newer := tab.Add(1000+youngSlots, false) // young's slot of 1000
	if n := indexed(&tab); n != 1 || tab.maxOld != 1000 {
		t.Fatalf("index holds %d records, maxOld %d; want 1000's alone", n, tab.maxOld)
	}
	if tab.Find(1000) != old || tab.Find(1000+youngSlots) != newer {
		t.Fatalf("an old or a young goroutine not found")
	}
	lower := tab.Add(500, false) // below maxOld: young, and found there
	if tab.Find(500) != lower || indexed(&tab) != 1 {
		t.Fatalf("500 not found in young")
	}
	tab.Delete(old)
	if tab.Find(1000) != nil || indexed(&tab) != 0 {
		t.Fatalf("1000 found, or left in the index, after its Delete")
	}
	if tab.Find(1000+youngSlots) != newer || tab.Find(500) != lower {
		t.Fatalf("young goroutines lost after an old one's Delete")
	}
}

// TestGTableReported: a round of reports finds every record, in the last
// round's order or not, and one added in a round is found where it was
// reported in the next.
func TestGTableReported(t *testing.T) {
	var tab gTable
	defer tab.Release()
	ids := make([]uint64, 20)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	recs := map[uint64]*gState{}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 10, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 0, 1, 2, 10, 4, 5, 6, 7}, {0, 1, 2, 10, 4, 5, 6, 7}} {
		tab.NextRound()
		var want []uint64
		for _, i := range order {
			id := ids[i]
			want = append(want, id)
			g := tab.FindReported(id)
			if g == nil {
				recs[id] = tab.Add(id, true)
				continue
			}
			if g != recs[id] {
				t.Fatalf("order %v: FindReported(%d) = %p, want %p", order, id, g, recs[id])
			}
		}
		if got := reported(&tab); !slices.Equal(got, want) {
			t.Fatalf("order %v: reports recorded %v", order, got)
		}
	}
	tab.Delete(recs[5])
	tab.NextRound()
	if g := tab.FindReported(5); g != nil {
		t.Fatalf("FindReported found a deleted record: %p", g)
	}
}

// reported returns the ids of the round's reports so far, in order.
func reported(tab *gTable) []uint64 {
	var ids []uint64
	for i := tab.first; i != 0 && len(ids) <= tab.Len(); i = tab.rec(i - 1).next {
		ids = append(ids, tab.rec(i-1).id)
		if tab.rec(i-1) == tab.latest {
			break
		}
	}
	return ids
}

// TestGStateSize: a goroutine's record stays 32 bytes.
func TestGStateSize(t *testing.T) {
	if n := unsafe.Sizeof(gState{}); n != 32 {
		t.Fatalf("a record is %d bytes", n)
	}
}

// TestGTableRounds: rounds of reports allocate nothing, in the last
// round's order, in another, or shorter.
func TestGTableRounds(t *testing.T) {
	var tab gTable
	defer tab.Release()
	const n = 5000
	for i := range n {
		tab.Add(uint64(i+1), false)
	}
	round := func(n int, id func(int) uint64) {
		tab.NextRound()
		for i := range n {
			if g := tab.FindReported(id(i)); g == nil || g.id != id(i) {
				t.Fatalf("record %d not found", id(i))
			}
		}
	}
	in := func(i int) uint64 { return uint64(i + 1) }
	back := func(i int) uint64 { return uint64(n - i) }
	// AllocsPerRun counts the process's allocations: the profiler's
	// goroutine that empties regions an earlier test gave back allocates
	// too, and on a loaded machine it may run inside the measure. It is
	// waited for, and enough runs make a stray allocation or two round
	// to nothing, where one a round would not.
	offheap.Settle()
	if a := testing.AllocsPerRun(50, func() { round(n, in); round(n, back); round(10, in) }); a != 0 {
		t.Fatalf("%v allocations a round", a)
	}
}

// TestGTableEarlyReports: the runtime reports the goroutines that ran at a
// generation's start before the others, in another order each round, and
// then the others in the last round's order: after the early ones, found
// in the index, the others are found in that order, but for one after
// each goroutine early in this round or the last.
func TestGTableEarlyReports(t *testing.T) {
	var tab gTable
	defer tab.Release()
	const n = 3000
	for i := range n {
		tab.Add(uint64(i+1), false)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var last []uint64
	for round := range 8 {
		tab.NextRound()
		// Some reported anywhere in the last round: its first, its last,
		// more than a few in a row.
		early := []uint64{1, n, 10, 11, 12, 13, 14, 1500, 700, 2999}
		rng.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
		early = early[:5+rng.IntN(5)]
		for _, id := range early {
			if tab.FindReported(id) == nil {
				t.Fatalf("round %d: early %d not found", round, id)
			}
		}
		indexed := 0
		for id := uint64(1); id <= n; id++ {
			if slices.Contains(early, id) {
				continue
			}
			if e := tab.expect; e == 0 || tab.rec(e-1).id != id {
				indexed++
			}
			if g := tab.FindReported(id); g == nil || g.id != id {
				t.Fatalf("round %d: %d not found", round, id)
			}
		}
		if round > 0 && indexed > len(early)+len(last)+1 {
			t.Fatalf("round %d: %d of the others found in the index, with %d early and %d early in the last round", round, indexed, len(early), len(last))
		}
		if got := len(reported(&tab)); got != n {
			t.Fatalf("round %d: %d reports recorded, want %d", round, got, n)
		}
		last = early
	}
}
