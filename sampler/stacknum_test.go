package sampler

import (
	"math/rand/v2"
	"testing"
)

// TestStackNums: a stack keeps its number while it is held, a number is
// freed once no holder yields it at a sweep, a stack whose number was freed
// takes a new one, and the numbers in use stay near those held.
func TestStackNums(t *testing.T) {
	var ns stackNums
	if ns.num(nil) != 0 || ns.at(0) != nil {
		t.Fatal("nil is not number 0")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	stacks := make([]*stack, 5000)
	for i := range stacks {
		stacks[i] = &stack{key: uint64(i)}
	}
	held := map[uint32]*stack{} // by number
	for round := range 200 {
		for range 300 {
			s := stacks[rng.IntN(len(stacks))]
			n := ns.num(s)
			if ns.at(n) != s || ns.num(s) != n {
				t.Fatalf("round %d: stack %d numbered %d, which gives back %v", round, s.key, n, ns.at(n))
			}
			if o, ok := held[n]; ok && o != s {
				t.Fatalf("round %d: number %d held by stacks %d and %d", round, n, o.key, s.key)
			}
			held[n] = s
		}
		for n := range held { // drop about half
			if rng.IntN(2) == 0 {
				delete(held, n)
			}
		}
		if ns.full() || round%50 == 49 {
			ns.sweep(func(mark func(uint32)) {
				for n := range held {
					mark(n)
					mark(n) // twice counts once
				}
			})
			if ns.inUse() != len(held) {
				t.Fatalf("round %d: %d numbers in use after a sweep, %d held", round, ns.inUse(), len(held))
			}
		}
		for n, s := range held {
			if ns.at(n) != s {
				t.Fatalf("round %d: held number %d gives %v, want stack %d", round, n, ns.at(n), s.key)
			}
		}
	}
	if ns.inUse() > 2*minSweep+300 {
		t.Fatalf("%d numbers in use, more than a sweep's bound", ns.inUse())
	}
}
