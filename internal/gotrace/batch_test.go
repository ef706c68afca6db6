package gotrace

import "testing"

func TestBatch(t *testing.T) {
	for _, c := range []struct {
		b       []byte
		gen     uint64
		end, ok bool
	}{
		{[]byte{evEventBatch, 0x85, 0x01, 7, 9, 0}, 133, false, true},
		{[]byte{evExperimentalBatch, 1, 3, 7, 9, 0}, 3, false, true},
		{[]byte{evEndOfGeneration}, 0, true, true},
		{[]byte{evEndOfGeneration, 0}, 0, false, false},
		{[]byte{evEventBatch, 0}, 0, false, false}, // generation 0
		{[]byte{evEventBatch}, 0, false, false},
		{[]byte{evStacks, 1}, 0, false, false},
		{nil, 0, false, false},
	} {
		gen, end, ok := Batch(c.b)
		if gen != c.gen || end != c.end || ok != c.ok {
			t.Errorf("Batch(%x) = %d, %v, %v; want %d, %v, %v", c.b, gen, end, ok, c.gen, c.end, c.ok)
		}
	}
}
