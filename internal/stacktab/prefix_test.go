package stacktab

import "testing"

// TestPrefixes moves three threads' stacks by random pops and pushes, deep
// and shallow, and checks each sample's value against the stack's whole
// fold, and that a deep thread's sample costs the frames that changed.
func TestPrefixes(t *testing.T) {
	calls := 0
	p := Prefixes[uint64]{Root: 1, Next: func(h uint64, fr uint32) uint64 {
		calls++
		return h*31 + uint64(fr)
	}}
	whole := func(stack []uint32) []uint64 {
		var vals []uint64
		h := uint64(1)
		for i := len(stack) - 1; i >= 0; i-- {
			h = h*31 + uint64(stack[i])
			vals = append(vals, h)
		}
		return vals
	}
	stacks := make([][]uint32, 3)
	x := uint64(3)
	rnd := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	for i := range 20000 {
		th := rnd(3)
		s, kept := stacks[th], len(stacks[th])
		switch rnd(4) {
		case 0: // pop some
			s = s[min(len(s), rnd(40)):]
			kept = len(s)
		case 1, 2: // push some
			for range rnd(40) {
				s = append([]uint32{uint32(rnd(5))}, s...)
			}
		case 3: // a stack anew, kept whole or not at all
			if rnd(2) == 0 {
				s, kept = nil, 0
			}
		}
		prevDeep := len(stacks[th]) >= CacheMinDepth
		stacks[th] = s
		before := calls
		got := p.Of(Thread{ID: uint64(th)}, s, kept)
		if w := whole(s); len(w) == 0 && got != 1 || len(w) > 0 && got != w[len(w)-1] {
			t.Fatalf("sample %d, thread %d: %x, not the whole fold's", i, th, got)
		}
		// A thread kept from a deep previous stack pays for what changed
		// and at most Stride-1 frames more.
		want := len(s)
		if prevDeep {
			want -= kept / Stride * Stride
		}
		if n := calls - before; n != want {
			t.Fatalf("sample %d: %d calls for a %d-frame stack that kept %d frames of a deep one: %v", i, n, len(s), kept, prevDeep)
		}
	}
}

// TestDeep checks Deep.ID against Table.ID on threads whose stacks move
// by pops and pushes, deep and shallow: the same ids, in the same order.
func TestDeep(t *testing.T) {
	var d Deep
	got, want := Table{Frames: Budget{Limit: 1 << 28}}, Table{Frames: Budget{Limit: 1 << 28}}
	stacks := make([][]uint32, 3)
	x := uint64(5)
	rnd := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	for i := range 5000 {
		th := rnd(3)
		s := stacks[th]
		kept := len(s)
		if rnd(2) == 0 {
			s = s[min(len(s), rnd(50)):]
			kept = len(s)
		}
		for range rnd(30) {
			s = append([]uint32{uint32(rnd(3))}, s...)
		}
		stacks[th] = s
		g, err := d.ID(&got, Thread{ID: uint64(th)}, s, kept)
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := want.ID(s); g != w {
			t.Fatalf("sample %d: id %d, Table.ID %d", i, g, w)
		}
	}
	if want.Len() < 1000 || len(d.ids) == 0 {
		t.Fatalf("%d stacks, %d deep", want.Len(), len(d.ids))
	}
}
