package gotrace

// ByID holds records of live goroutines by goroutine id: a map, and before
// it a small table of the records found lately, indexed by id. A busy
// program's events name a few hundred goroutines over and over (a server's
// connections), and a hit in the table saves a map lookup. Make one with
// NewByID.
//
// The runtime reports the status of every goroutine once a generation, in
// the same order each time (its list of goroutines, where a new goroutine
// takes an ended one's place): FindReported looks for a reported
// goroutine where the last round of reports had the next one before it
// looks in the map, whose lookups were most of the cost of a generation's
// reports of many parked goroutines (bench/MEASUREMENTS.md). A record
// knows its goroutine id (P's GoID).
type ByID[T any, P interface {
	*T
	GoID() uint64
}] struct {
	m      map[uint64]*T
	recent []recent[T]
	mask   uint64 // len(recent)-1
	// order is this round's reported records in the order they were
	// reported, prev the last round's, and pos how far this round has
	// followed it.
	order, prev []*T
	pos         int
}

// recent is a slot of ByID's table: a goroutine id and its record.
type recent[T any] struct {
	id uint64
	p  *T
}

// NewByID returns an empty ByID whose table of recent records has
// 1<<bits slots.
func NewByID[T any, P interface {
	*T
	GoID() uint64
}](bits uint) ByID[T, P] {
	return ByID[T, P]{m: make(map[uint64]*T), recent: make([]recent[T], 1<<bits), mask: 1<<bits - 1}
}

// Find returns goroutine id's record, nil if it has none.
func (b *ByID[T, P]) Find(id uint64) *T {
	slot := &b.recent[id&b.mask]
	if slot.p != nil && slot.id == id {
		return slot.p
	}
	p := b.m[id]
	if p != nil {
		*slot = recent[T]{id, p}
	}
	return p
}

// Add makes p goroutine id's record.
func (b *ByID[T, P]) Add(id uint64, p *T) {
	b.m[id] = p
	b.recent[id&b.mask] = recent[T]{id, p}
}

// Delete removes goroutine id's record. A record deleted, or given to
// another goroutine, is not found again where the last round had it: its
// GoID is no longer id.
func (b *ByID[T, P]) Delete(id uint64) {
	delete(b.m, id)
	if slot := &b.recent[id&b.mask]; slot.id == id {
		*slot = recent[T]{}
	}
}

// Len returns the number of records.
func (b *ByID[T, P]) Len() int { return len(b.m) }

// NextRound begins a round of status reports (a generation's): the
// reports of the round that ends give the order the new one is looked for
// in.
//
// The list of a round far shorter than the one before last is not kept
// for reuse, but replaced by one of keepReports: a reader that sees only
// the reports that changed something (Reader.SkipSame) reports every
// goroutine in its first round and few after, and would otherwise hold a
// pointer per goroutine for good.
func (b *ByID[T, P]) NextRound() {
	next := b.prev[:0]
	if cap(next) > keepReports && len(b.order) < cap(next)/8 {
		next = make([]*T, 0, keepReports)
	}
	b.order, b.prev, b.pos = next, b.order, 0
}

// keepReports is the length of the list that replaces a long one let go:
// rounds of up to that many reports, however their lengths change, then
// allocate nothing.
const keepReports = 4096

// FindReported is Find for a goroutine whose status is reported in this
// round, and records the report: it looks first at the next few records
// the last round reported (a few ended ones skipped), then in the map. A
// goroutine not found is recorded with Report once added.
func (b *ByID[T, P]) FindReported(id uint64) *T {
	for k := b.pos; k < min(b.pos+4, len(b.prev)); k++ {
		if p := b.prev[k]; P(p).GoID() == id && id != 0 {
			b.pos = k + 1
			b.order = append(b.order, p)
			return p
		}
	}
	p := b.Find(id)
	if p != nil {
		b.order = append(b.order, p)
	}
	return p
}

// Report records p's status as reported in this round, after
// FindReported found none.
func (b *ByID[T, P]) Report(p *T) { b.order = append(b.order, p) }
