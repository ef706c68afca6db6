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
//
// The records and the index hold no pointers, and lie off the Go heap
// (package offheap), where a byte costs the program one of its resident
// set rather than about two: Release gives them back.
//
// The runtime reports the status of every goroutine once a generation, in
// the same order each time (its list of goroutines, where a new goroutine
// takes an ended one's place): FindReported looks for a reported
// goroutine where the last round of reports had the next one before it
// looks in the index (bench/MEASUREMENTS.md).
type gTable struct {
	recs  chunked.Array[gState] // every record made
	free  uint32                // the first ended record's number plus one, 0 none; the next is in its seq
	n     int                   // live records
	slots []uint32              // record numbers plus one by hash of id, 0 empty; a power of two long
	shift uint                  // 64 less log2(len(slots))
	// ord holds the numbers of the last round's reported records in the
	// order they were reported, from pos on, which is how far this round
	// has followed it, and this round's before w (w <= pos): a round
	// writes its reports over the last one's it passed. A report that
	// finds no room there, as at a round's start, waits in spill, and
	// goes after the round's others when it ends.
	ord, spill []uint32
	pos, w     int
}

// minSlots is the index's smallest length.
const minSlots = 1024

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
	if len(t.slots) == 0 {
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
	t.place(i)
	t.n++
	if reported {
		t.report(i)
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
	// The rest stays until the record is reused: the event of the end,
	// still to be returned, takes the goroutine's number from it.
	g.id, g.seq = 0, t.free
	t.free = i + 1
	t.n--
}

// Len returns the number of records.
func (t *gTable) Len() int { return t.n }

// NextRound begins a round of status reports (a generation's): the
// reports of the round that ends give the order the new one is looked for
// in.
//
// A list far longer than the round that ends is not kept for reuse, but
// replaced by one of keepReports: a reader that sees only the reports
// that changed something (Reader.SkipSame) reports every goroutine in its
// first round and few after, and would otherwise hold a number per
// goroutine for good; and the first round's reports all wait in spill.
func (t *gTable) NextRound() {
	spilled := len(t.spill)
	if n := t.w + spilled; cap(t.ord) > keepReports && n < cap(t.ord)/8 {
		t.ord = append(make([]uint32, 0, keepReports), t.ord[:t.w]...)
	}
	t.ord = append(t.ord[:t.w], t.spill...)
	t.spill = t.spill[:0]
	if cap(t.spill) > keepReports && spilled < cap(t.spill)/8 {
		t.spill = make([]uint32, 0, keepReports)
	}
	t.pos, t.w = 0, 0
}

// report records record i as this round's next report.
func (t *gTable) report(i uint32) {
	if t.w < t.pos {
		t.ord[t.w] = i
		t.w++
		return
	}
	t.spill = append(t.spill, i)
}

// keepReports is the length of the list that replaces a long one let go:
// rounds of up to that many reports, however their lengths change, then
// allocate nothing.
const keepReports = 4096

// FindReported is Find for a goroutine whose status is reported in this
// round, and records the report: it looks first at the next few records
// the last round reported (a few ended ones skipped), then in the index.
// A goroutine not found is recorded by Add(id, true).
func (t *gTable) FindReported(id uint64) *gState {
	for k := t.pos; k < min(t.pos+4, len(t.ord)); k++ {
		if i := t.ord[k]; t.rec(i).id == id && id != 0 {
			t.pos = k + 1
			t.report(i)
			return t.rec(i)
		}
	}
	i, ok := t.lookup(id)
	if !ok {
		return nil
	}
	t.report(i)
	return t.rec(i)
}
