package gotrace

import (
	"fmt"
	"testing"
)

// BenchmarkGTableChurn is the table's work for a goroutine that comes and
// goes among live ones, as a service's per-request goroutines do: the
// look for a new id that is not there (as at its creation), its Add, a
// look for a live goroutine that is there (as at a start or an unblock),
// and the Delete of the oldest. Ids come as the runtime gives them,
// consecutive within each P's batch of 16, two Ps taking turns.
func BenchmarkGTableChurn(b *testing.B) {
	for _, live := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint("live=", live), func(b *testing.B) {
			var tab gTable
			defer tab.Release()
			ids := make([]uint64, live) // a ring of the live ids, oldest at head
			for i := range ids {
				ids[i] = uint64(i + 1)
				tab.Add(ids[i], false)
			}
			next := [2]uint64{uint64(live) + 1, uint64(live) + 17}
			head := 0
			b.ReportAllocs()
			b.ResetTimer()
			for n := range b.N {
				p := n & 1
				id := next[p]
				if next[p]++; next[p]%16 == 1 {
					next[p] += 16
				}
				if tab.Find(id) != nil {
					b.Fatalf("%d found before its Add", id)
				}
				tab.Add(id, false)
				if g := tab.Find(ids[(head+live/2)%live]); g == nil {
					b.Fatal("a live goroutine not found")
				}
				tab.Delete(tab.Find(ids[head]))
				ids[head] = id
				head = (head + 1) % live
			}
		})
	}
}

// BenchmarkGTableParked is the table's work for a service's short-lived
// goroutines among parked ones that the index holds but nothing looks
// up, so that their records fall out of the caches: a young goroutine's
// creation (the look for its id, which is not there, and its Add), two
// looks for it (a start and an unblock), and the Delete of the one added
// 64 before. They come and go in young; the parked ones lie in the
// index, out of the caches, where a young goroutine's look and Delete
// would pass their slots and records.
func BenchmarkGTableParked(b *testing.B) {
	for _, parked := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint("parked=", parked), func(b *testing.B) {
			var tab gTable
			defer tab.Release()
			for i := range parked {
				tab.Add(uint64(i+1), false)
			}
			var young [64]*gState
			next := uint64(parked) + 1
			b.ReportAllocs()
			b.ResetTimer()
			for n := range b.N {
				k := n % len(young)
				if g := young[k]; g != nil {
					tab.Delete(g)
				}
				if tab.Find(next) != nil {
					b.Fatalf("%d found before its Add", next)
				}
				young[k] = tab.Add(next, false)
				for range 2 { // a start and an unblock
					if tab.Find(next) == nil {
						b.Fatal("a live goroutine not found")
					}
				}
				next++
			}
		})
	}
}
