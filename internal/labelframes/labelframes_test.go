package labelframes

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

func TestFrames(t *testing.T) {
	table := []tachyon.Frame{
		{File: "/a.go", Func: "main.f", Line: 3},
		tachyon.LabelFrame(tachyon.Label{Key: "route", Value: "/api"}),
		tachyon.WaitFrame("chan receive"),
		tachyon.LabelFrame(tachyon.Label{Key: "method", Value: "GET"}),
		{File: tachyon.LabelFile, Func: "no-equals"}, // not a label frame
	}
	x := New(len(table), func(i uint32) tachyon.Frame { return table[i] })
	if !x.Any() || !x.IsLabel(1) || x.IsLabel(0) || x.IsLabel(4) || x.IsLabel(99) {
		t.Fatalf("IsLabel wrong: %+v", x)
	}
	for _, c := range []struct {
		stack []uint32
		code  int
	}{
		{nil, 0},
		{[]uint32{2, 0, 1, 3}, 2},
		{[]uint32{0, 1, 0}, 3}, // a label frame inside the code is code
		{[]uint32{1, 3}, 0},
		{[]uint32{0, 4}, 2},
		{[]uint32{0, 99}, 2}, // out of range: not a label
	} {
		if got := x.Code(c.stack); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.stack, got, c.code)
		}
	}
	none := New(1, func(uint32) tachyon.Frame { return table[0] })
	if none.Any() || none.Code([]uint32{0, 0}) != 2 {
		t.Fatal("a table without label frames")
	}
	if n := testing.AllocsPerRun(100, func() { x.Code([]uint32{2, 0, 1, 3}) }); n != 0 {
		t.Fatalf("Code allocates %v", n)
	}
}
