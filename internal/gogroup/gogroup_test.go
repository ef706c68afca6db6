package gogroup

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

// table is a frame table of every kind of frame the rule tells apart.
var table = []tachyon.Frame{
	{File: "/m.go", Func: "main.main", Line: 3},                                    // 0
	{File: "/m.go", Func: "main.main.func4", Line: 9},                              // 1
	{File: "/m.go", Func: "main.work", Line: 20},                                   // 2
	{File: "/m.go", Func: "main.work", Line: 21},                                   // 3: another line of it
	tachyon.WaitFrame("chan receive"),                                              // 4
	{File: "/go/src/runtime/chan.go", Func: "runtime.chanrecv1", Line: 442},        // 5
	{Func: tachyon.RuntimeRoot},                                                    // 6
	{File: "/go/src/runtime/mgc.go", Func: "runtime.gcBgMarkWorker", Line: 1400},   // 7
	tachyon.LabelFrame(tachyon.Label{Key: "route", Value: "/api"}),                 // 8
	{File: "/go/src/runtime/proc.go", Func: "runtime.main", Line: 283},             // 9
	{File: "/m.go", Func: "main.main.gowrap1", Line: 12},                           // 10
	{File: "/m.go", Func: "main.crunch", Line: 40},                                 // 11
	{File: "/m.go", Func: "main.flush", Line: 50},                                  // 12
	{File: "/go/src/runtime/proc.go", Func: "runtime.goexit", Line: 1700},          // 13
	{File: "/go/src/runtime/proc.go", Func: "runtime.gopark", Line: 460},           // 14
	{File: "/go/src/runtime/mgcsweep.go", Func: "runtime.bgsweep", Line: 300},      // 15
	{File: "/go/src/runtime/mgcsweep.go", Func: "runtime.goparkunlock", Line: 400}, // 16
}

func rule() *Rule { return New(len(table), func(i uint32) tachyon.Frame { return table[i] }) }

func TestStartOf(t *testing.T) {
	r := rule()
	for _, c := range []struct {
		name    string
		stack   []uint32 // innermost first
		start   string
		callee  string
		runtime bool
		ok      bool
	}{
		{"plain", []uint32{2, 0}, "main.main", "", false, true},
		{"closure", []uint32{5, 3, 1}, "main.main.func4", "main.work", false, true},
		{"closure waiting", []uint32{4, 5, 2, 1}, "main.main.func4", "main.work", false, true},
		{"closure in the runtime", []uint32{4, 5, 1}, "main.main.func4", "", false, true},
		{"closure alone", []uint32{1}, "main.main.func4", "", false, true},
		{"labels left out", []uint32{2, 1, 8}, "main.main.func4", "main.work", false, true},
		{"labels only", []uint32{8}, "", "", false, false},
		{"empty", nil, "", "", false, false},
		{"runtime root", []uint32{14, 7, 6}, "runtime.gcBgMarkWorker", "", true, true},
		{"runtime root alone", []uint32{6}, tachyon.RuntimeRoot, "", true, true},
		{"runtime.main passed over", []uint32{2, 0, 9}, "main.main", "", false, true},
		{"goexit passed over", []uint32{11, 10, 13}, "main.main.gowrap1", "main.crunch", false, true},
		{"runtime only", []uint32{16, 15}, "runtime.bgsweep", "", false, true},
		{"wait reason only", []uint32{4}, "[chan receive]", "", false, true},
	} {
		s, ok := r.StartOf(c.stack)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		callee := ""
		if s.Callee >= 0 {
			callee = r.Func(s.Callee)
		}
		if r.Func(s.Func) != c.start || callee != c.callee || s.Runtime != c.runtime {
			t.Errorf("%s: start %q callee %q runtime %v, want %q %q %v", c.name, r.Func(s.Func), callee, s.Runtime, c.start, c.callee, c.runtime)
		}
	}
}

// TestNames: a closure's group is named after the function it calls in
// most samples, whichever line the frames are at; another start after
// itself.
func TestNames(t *testing.T) {
	r := rule()
	x := NewNames(r)
	add := func(stack []uint32, n uint64) int32 {
		s, ok := r.StartOf(stack)
		if !ok {
			t.Fatalf("no start for %v", stack)
		}
		x.Add(s, n)
		return s.Func
	}
	closure := add([]uint32{2, 1}, 3)
	add([]uint32{3, 1}, 3) // main.work at another line: 6 in all
	add([]uint32{12, 1}, 5)
	plain := add([]uint32{2, 0}, 100)
	if got := x.Name(closure); got != "main.work" {
		t.Errorf("closure named %q, want main.work", got)
	}
	if got := x.Name(plain); got != "main.main" {
		t.Errorf("main.main named %q", got)
	}
	// A tie goes to the first by name.
	y := NewNames(r)
	for _, st := range [][]uint32{{12, 1}, {2, 1}} {
		s, _ := r.StartOf(st)
		y.Add(s, 4)
	}
	if s, _ := r.StartOf([]uint32{1}); y.Name(s.Func) != "main.flush" {
		t.Errorf("tie named %q, want main.flush", y.Name(s.Func))
	}
}

func TestIsClosure(t *testing.T) {
	for fn, want := range map[string]bool{
		"main.main.func1":              true,
		"main.main.func1.2":            true,
		"main.main.gowrap3":            true,
		"github.com/a/b.(*T).M.func12": true,
		"main.main":                    false,
		"main.function":                false,
		"main.func":                    false,
		"[select]":                     false,
	} {
		if got := IsClosure(fn); got != want {
			t.Errorf("IsClosure(%q) = %v, want %v", fn, got, want)
		}
	}
}
