package gotrace

import "testing"

// TestByID: records are found by id whether their slot in the table of
// recent ones holds them or another id that shares it, and not after
// Delete.
func TestByID(t *testing.T) {
	b := NewByID[rec, *rec](2)
	vals := make([]rec, 10)
	for id := range uint64(len(vals)) {
		vals[id].id = id
		b.Add(id, &vals[id])
	}
	for round := range 2 {
		for id := range uint64(len(vals)) {
			if p := b.Find(id); p != &vals[id] {
				t.Fatalf("round %d: Find(%d) = %p, want %p", round, id, p, &vals[id])
			}
		}
	}
	b.Delete(9)
	b.Delete(4) // its slot holds 8, which Find put there last
	if b.Find(9) != nil || b.Find(4) != nil || b.Len() != 8 {
		t.Fatalf("after Delete: Find(9) %p, Find(4) %p, Len %d", b.Find(9), b.Find(4), b.Len())
	}
	if p := b.Find(8); p != &vals[8] {
		t.Fatalf("Find(8) = %p after deleting 4, want %p", p, &vals[8])
	}
}

// rec is a test record.
type rec struct{ id uint64 }

func (r *rec) GoID() uint64 { return r.id }

// TestByIDReported: a round of reports finds every record, in the last
// round's order or not, and one added in a round is found where it was
// reported in the next.
func TestByIDReported(t *testing.T) {
	b := NewByID[rec, *rec](1)
	vals := make([]rec, 20)
	for id := range uint64(len(vals)) {
		vals[id].id = id + 1
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 10, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 0, 1, 2, 10, 4, 5, 6, 7}, {0, 1, 2, 10, 4, 5, 6, 7}} {
		b.NextRound()
		for _, i := range order {
			id := vals[i].id
			p := b.FindReported(id)
			if p == nil {
				b.Add(id, &vals[i])
				b.Report(&vals[i])
				continue
			}
			if p != &vals[i] {
				t.Fatalf("order %v: FindReported(%d) = %p, want %p", order, id, p, &vals[i])
			}
		}
		if len(b.order) != len(order) {
			t.Fatalf("order %v: %d reports recorded", order, len(b.order))
		}
	}
	b.Delete(vals[4].id)
	vals[4].id = 0 // ended
	b.NextRound()
	if p := b.FindReported(5); p != nil {
		t.Fatalf("FindReported found a deleted record: %p", p)
	}
}

// TestByIDShortRounds: after a round that reported many records, rounds
// that report few let its list go, so that a reader that sees only the
// changed reports holds no pointer per goroutine; rounds of similar
// lengths reuse their lists.
func TestByIDShortRounds(t *testing.T) {
	b := NewByID[rec, *rec](4)
	vals := make([]rec, 4*keepReports)
	for i := range vals {
		vals[i].id = uint64(i + 1)
		b.Add(vals[i].id, &vals[i])
	}
	round := func(n int) {
		b.NextRound()
		for i := range n {
			if b.FindReported(vals[i].id) != &vals[i] {
				t.Fatalf("record %d not found", i)
			}
		}
	}
	round(len(vals))
	round(len(vals)) // the lists of both rounds are now long
	if a := testing.AllocsPerRun(3, func() { round(len(vals)) }); a != 0 {
		t.Fatalf("rounds of the same length: %v allocations a round", a)
	}
	for range 3 {
		round(10)
	}
	if c := cap(b.order) + cap(b.prev); c > 2*keepReports {
		t.Fatalf("after short rounds the lists hold %d pointers", c)
	}
}
