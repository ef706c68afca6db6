package gotrace

// ByID holds records of live goroutines by goroutine id: a map, and before
// it a small table of the records found lately, indexed by id. A busy
// program's events name a few hundred goroutines over and over (a server's
// connections), and a hit in the table saves a map lookup. Make one with
// NewByID.
type ByID[T any] struct {
	m      map[uint64]*T
	recent []recent[T]
	mask   uint64 // len(recent)-1
}

// recent is a slot of ByID's table: a goroutine id and its record.
type recent[T any] struct {
	id uint64
	p  *T
}

// NewByID returns an empty ByID whose table of recent records has
// 1<<bits slots.
func NewByID[T any](bits uint) ByID[T] {
	return ByID[T]{m: make(map[uint64]*T), recent: make([]recent[T], 1<<bits), mask: 1<<bits - 1}
}

// Find returns goroutine id's record, nil if it has none.
func (b *ByID[T]) Find(id uint64) *T {
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
func (b *ByID[T]) Add(id uint64, p *T) {
	b.m[id] = p
	b.recent[id&b.mask] = recent[T]{id, p}
}

// Delete removes goroutine id's record.
func (b *ByID[T]) Delete(id uint64) {
	delete(b.m, id)
	if slot := &b.recent[id&b.mask]; slot.id == id {
		*slot = recent[T]{}
	}
}

// Len returns the number of records.
func (b *ByID[T]) Len() int { return len(b.m) }
