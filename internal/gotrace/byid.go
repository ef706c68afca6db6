package gotrace

import (
	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/internal/offheap"
)

// gTable holds the records of the live goroutines, found by goroutine id.
// The zero gTable is empty and ready.
//
// Records lie in chunks that are never moved or given back, numbered in
// the order they were first made: a record keeps its address and its
// number while its goroutine lives, and an ended goroutine's record is the
// next new one's. Like the runtime's own list of goroutines, the chunks
// and the index stay at the most goroutines that ever lived at once, so
// that a program whose goroutines come and go in bursts does not make
// them again at each.
//
// The index by id is a table of record numbers with linear probing, which
// costs 4 to 10 bytes a goroutine where a map of pointers cost about 23.
// A new goroutine goes first into young, a small table of ids and record
// numbers by the id's low bits, and into the index only when a newer one
// takes its place there: a service's short-lived goroutines (the
// runtime numbers each P's in a run of consecutive ids) come and go in
// young, whose few lines stay in the caches, and never reach the index,
// where each new id's slot is a line out of the caches. maxOld, the
// largest id the index ever held, lets the look for a new id, larger,
// pass the index by.
//
// The records and the index hold no pointers, and lie off the Go heap
// (package offheap), where a byte costs the program one of its resident
// set rather than about two: Release gives them back.
//
// The runtime reports the status of every goroutine once a generation: at
// its start those that run then, in no set order, and then the others in
// the same order each time (its list of goroutines, where a new goroutine
// takes an ended one's place). Each record holds the number of the one
// reported after it in the latest round that reported it, so that
// FindReported looks for a reported goroutine where the last round went on
// from the one reported before it, and a goroutine found in the index
// instead takes the search on from where the last round went on from it
// (bench/MEASUREMENTS.md).
type gTable struct {
	recs   chunked.Array[gState] // every record made
	free   uint32                // the first ended record's number plus one, 0 none; the next is in its seq
	n      int                   // live records
	slots  []uint32              // record numbers plus one by hash of id, 0 empty; a power of two long
	shift  uint                  // 64 less log2(len(slots))
	young  [youngSlots]youngSlot // the newest goroutines by id's low bits, in no slot
	maxOld uint64                // the largest id ever put in slots
	// expect is the number plus one of the record the last round
	// reported after this round's latest report (at a round's start, its
	// first), 0 none; first is the round's first report's. latest is
	// the round's latest report, nil none: a record keeps its address,
	// and Release clears it.
	expect, first uint32
	latest        *gState
}

// minSlots is the index's smallest length.
const minSlots = 1024

// youngSlots is young's length, a power of two: more than the ids a
// service's goroutines in flight span.
const youngSlots = 256

// youngSlot holds a goroutine that is not in the index: its id, and its
// record's number plus one (0 if the slot is empty).
type youngSlot struct {
	id  uint64
	rec uint32
}

// rec returns record i.
func (t *gTable) rec(i uint32) *gState { return t.recs.At(i) }

// home returns the slot where the search for id begins: Fibonacci hashing,
// which spreads the runtime's consecutive ids evenly.
func (t *gTable) home(id uint64) uint64 { return (id * 0x9e3779b97f4a7c15) >> t.shift }

// Find returns goroutine id's record, nil if it has none.
func (t *gTable) Find(id uint64) *gState {
	if i, ok := t.lookup(id); ok {
		return t.rec(i)
	}
	return nil
}

// lookup returns the number of goroutine id's record, and whether it has
// one.
func (t *gTable) lookup(id uint64) (uint32, bool) {
	if y := &t.young[id&(youngSlots-1)]; y.id == id && y.rec != 0 {
		return y.rec - 1, true
	}
	if id > t.maxOld || len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for s := t.home(id); ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			return 0, false
		}
		if t.rec(v-1).id == id {
			return v - 1, true
		}
	}
}

// Add returns a new record for goroutine id, which has none: zero but for
// its id. If reported, it is recorded as reported in this round, as
// FindReported would have.
func (t *gTable) Add(id uint64, reported bool) *gState {
	if (t.n+1)*16 > len(t.slots)*13 {
		t.grow()
	}
	var i uint32
	if t.free != 0 {
		i = t.free - 1
		t.free = t.rec(i).seq
	} else {
		i = t.recs.Grow()
	}
	g := t.rec(i)
	*g = gState{id: id}
	y := &t.young[id&(youngSlots-1)]
	if y.rec != 0 {
		t.place(y.rec - 1)
		t.maxOld = max(t.maxOld, y.id)
	}
	y.id, y.rec = id, i+1
	t.n++
	if reported {
		t.report(i, g)
	}
	return g
}

// place puts record i in the index.
func (t *gTable) place(i uint32) {
	mask := uint64(len(t.slots) - 1)
	s := t.home(t.rec(i).id)
	for t.slots[s] != 0 {
		s = (s + 1) & mask
	}
	t.slots[s] = i + 1
}

// grow doubles the index. It is first called before the first record is
// made, and makes the records Mapped.
func (t *gTable) grow() {
	t.recs.Mapped = true
	old := t.slots
	n := max(minSlots, 2*len(old))
	t.slots = offheap.Make[uint32](n)
	t.shift = 64
	for n > 1 {
		n >>= 1
		t.shift--
	}
	for _, v := range old {
		if v != 0 {
			t.place(v - 1)
		}
	}
	offheap.Free(old)
}

// Release gives back the records and the index: no record the table gave
// out may be used after. The table is then empty and ready.
func (t *gTable) Release() {
	t.recs.Release()
	offheap.Free(t.slots)
	*t = gTable{}
}

// Delete removes g, a live record, which is then free for a new goroutine
// (its seq links it to the next free one). A record deleted is not found
// again where the last round had it: its id is 0 until it is reused, and
// then another goroutine's.
func (t *gTable) Delete(g *gState) {
	var i uint32
	if y := &t.young[g.id&(youngSlots-1)]; y.rec != 0 && t.rec(y.rec-1) == g {
		i = y.rec - 1
		*y = youngSlot{}
	} else {
		i = t.unplace(g)
	}
	// The rest stays until the record is reused: the event of the end,
	// still to be returned, takes the goroutine's number from it.
	g.id, g.seq = 0, t.free
	t.free = i + 1
	t.n--
}

// unplace takes g, a live record in the index, out of it, and returns its
// number.
func (t *gTable) unplace(g *gState) uint32 {
	mask := uint64(len(t.slots) - 1)
	s := t.home(g.id)
	for t.rec(t.slots[s]-1) != g {
		s = (s + 1) & mask
	}
	i := t.slots[s] - 1
	// Backward-shift deletion: move up every record after the hole
	// whose search would pass it.
	for j := (s + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := t.home(t.rec(t.slots[j] - 1).id)
		if (j-h)&mask >= (j-s)&mask {
			t.slots[s] = t.slots[j]
			s = j
		}
	}
	t.slots[s] = 0
	return i
}

// Len returns the number of records.
func (t *gTable) Len() int { return t.n }

// NextRound begins a round of status reports (a generation's): the
// reports of the round that ends give the order the new one is looked for
// in.
func (t *gTable) NextRound() {
	if t.latest != nil {
		t.latest.next = 0
	}
	t.expect, t.first, t.latest = t.first, 0, nil
}

// report records g, record i, as this round's next report, and returns
// it.
func (t *gTable) report(i uint32, g *gState) *gState {
	t.expect = g.next
	if t.latest != nil {
		t.latest.next = i + 1
	} else {
		t.first = i + 1
	}
	t.latest = g
	return g
}

// FindReported is Find for a goroutine whose status is reported in this
// round, and records the report: it looks first at the record the last
// round reported after this round's latest report, then in the index. A
// goroutine not found is recorded by Add(id, true).
func (t *gTable) FindReported(id uint64) *gState {
	if e := t.expect; e != 0 {
		if g := t.rec(e - 1); g.id == id && id != 0 {
			return t.report(e-1, g)
		}
	}
	i, ok := t.lookup(id)
	if !ok {
		return nil
	}
	return t.report(i, t.rec(i))
}
