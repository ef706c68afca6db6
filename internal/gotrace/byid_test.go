package gotrace

import (
	"math/rand/v2"
	"slices"
	"testing"
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
		gs[i] = tab.Add(id, false)
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
		for _, i := range order {
			id := ids[i]
			g := tab.FindReported(id)
			if g == nil {
				recs[id] = tab.Add(id, true)
				continue
			}
			if g != recs[id] {
				t.Fatalf("order %v: FindReported(%d) = %p, want %p", order, id, g, recs[id])
			}
		}
		if n := tab.w + len(tab.spill); n != len(order) {
			t.Fatalf("order %v: %d reports recorded", order, n)
		}
	}
	tab.Delete(recs[5])
	tab.NextRound()
	if g := tab.FindReported(5); g != nil {
		t.Fatalf("FindReported found a deleted record: %p", g)
	}
}

// TestGTableShortRounds: after a round that reported many records, rounds
// that report few let its list go, so that a reader that sees only the
// changed reports holds no number per goroutine; rounds of similar
// lengths reuse their list, and once a round follows the last one's
// order, no second list of a number per goroutine is kept beside it.
func TestGTableShortRounds(t *testing.T) {
	var tab gTable
	defer tab.Release()
	n := 4 * keepReports
	for i := range n {
		tab.Add(uint64(i+1), false)
	}
	round := func(n int) {
		tab.NextRound()
		for i := range n {
			if g := tab.FindReported(uint64(i + 1)); g == nil || g.id != uint64(i+1) {
				t.Fatalf("record %d not found", i)
			}
		}
	}
	round(n) // the first round's reports all wait in spill
	round(n)
	if a := testing.AllocsPerRun(3, func() { round(n) }); a != 0 {
		t.Fatalf("rounds of the same length: %v allocations a round", a)
	}
	if c := cap(tab.spill); c > keepReports {
		t.Fatalf("rounds in the same order: spill holds %d numbers", c)
	}
	for range 3 {
		round(10)
	}
	if c := cap(tab.ord) + cap(tab.spill); c > 2*keepReports {
		t.Fatalf("after short rounds the lists hold %d numbers", c)
	}
}

// TestGTableEarlyReports: the runtime reports the goroutines that ran at a
// generation's start before the others, which then come in the last
// round's order: after the early ones, found in the index, the others are
// all found in that order, not in the index.
func TestGTableEarlyReports(t *testing.T) {
	var tab gTable
	defer tab.Release()
	const n = 3000
	for i := range n {
		tab.Add(uint64(i+1), false)
	}
	early := []uint64{2999, 10, 1500, 11, 700}
	for round := range 4 {
		tab.NextRound()
		for _, id := range early {
			if tab.FindReported(id) == nil {
				t.Fatalf("round %d: early %d not found", round, id)
			}
		}
		slots := tab.slots
		if round > 1 {
			tab.slots = make([]uint32, len(slots)) // an empty index
		}
		for id := uint64(1); id <= n; id++ {
			if slices.Contains(early, id) {
				continue
			}
			if g := tab.FindReported(id); g == nil || g.id != id {
				t.Fatalf("round %d: %d not found in the last round's order", round, id)
			}
		}
		tab.slots = slots
		if got := tab.w + len(tab.spill); got != n {
			t.Fatalf("round %d: %d reports recorded, want %d", round, got, n)
		}
	}
}
