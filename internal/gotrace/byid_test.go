package gotrace

import "testing"

// TestByID: records are found by id whether their slot in the table of
// recent ones holds them or another id that shares it, and not after
// Delete.
func TestByID(t *testing.T) {
	b := NewByID[int](2)
	vals := make([]int, 10)
	for id := range uint64(len(vals)) {
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
