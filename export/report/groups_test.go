package report

import (
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// fixtureGoroutine is a goroutine of a wall profile of 100 ticks whose
// groups and ranks are known: in phases, each with its stack (outermost
// first), state and ticks.
type fixtureGoroutine struct {
	id     uint64
	stacks [][]string      // per phase, outermost first
	states []tachyon.State // per phase
	ticks  []int           // ticks per phase, adding up to 100
}

func fixture() []fixtureGoroutine {
	var gs []fixtureGoroutine
	id := uint64(1)
	add := func(n int, g fixtureGoroutine) {
		for range n {
			g.id = id
			id++
			gs = append(gs, g)
		}
	}
	one := func(stack []string, st tachyon.State) fixtureGoroutine {
		return fixtureGoroutine{stacks: [][]string{stack}, states: []tachyon.State{st}, ticks: []int{100}}
	}
	// 10 idle workers started by a closure: most samples, no CPU.
	add(10, one([]string{"main.main.func1", "main.idle", "runtime.selectgo", "[select]"}, tachyon.Blocked))
	// One CPU-bound goroutine started by "go crunch()": a gowrap closure.
	add(1, one([]string{"main.main.gowrap1", "main.crunch"}, tachyon.Running))
	// A server goroutine waiting for a CPU 60 % of the time.
	add(1, fixtureGoroutine{stacks: [][]string{{"main.serve", "main.handle"}, {"main.serve", "[IO wait]"}},
		states: []tachyon.State{tachyon.Runnable, tachyon.Blocked}, ticks: []int{60, 40}})
	// Two workers of one start function, one mostly on a channel, one
	// mostly in a select: one group, doing the same thing.
	add(1, fixtureGoroutine{stacks: [][]string{{"main.worker", "main.step"}, {"main.worker", "[chan receive]"}},
		states: []tachyon.State{tachyon.Running, tachyon.Blocked}, ticks: []int{30, 70}})
	add(1, fixtureGoroutine{stacks: [][]string{{"main.worker", "main.step"}, {"main.worker", "[select]"}},
		states: []tachyon.State{tachyon.Syscall, tachyon.Blocked}, ticks: []int{20, 80}})
	// Three runtime goroutines: the entry falls back to runtime frames.
	add(3, one([]string{"runtime.bgsweep", "runtime.gopark", "[GC sweep wait]"}, tachyon.Blocked))
	return gs
}

// writeFixture writes the fixture, every goroutine sampled at every tick.
func writeFixture(t *testing.T) string {
	t.Helper()
	var samples []writer.Sample
	for tick := range 100 {
		for _, g := range fixture() {
			phase, at := 0, tick
			for at >= g.ticks[phase] {
				at -= g.ticks[phase]
				phase++
			}
			var frames []tachyon.Frame // innermost first
			stack := g.stacks[phase]
			for i := len(stack) - 1; i >= 0; i-- {
				fr := tachyon.Frame{Func: stack[i]}
				if stack[i][0] != '[' {
					fr.File, fr.Line = "/src/main.go", int32(10+i)
				}
				frames = append(frames, fr)
			}
			samples = append(samples, writer.Sample{ThreadID: g.id, Timestamp: uint64(1_000_000 + tick*10_000),
				Status: tachyon.StatusOf(g.states[phase], false), Frames: frames})
		}
	}
	return proftest.WriteSamples(t, writer.Options{StartTime: 1_000_000, Interval: 10_000}, samples)
}

// TestGroups checks grouping by start function (internal/gogroup), and
// ranking by running + runnable samples, on a synthetic wall profile: the
// idle pool, with the most samples, comes after every group that used or
// wanted a CPU; a system call is neither.
func TestGroups(t *testing.T) {
	f := proftest.Open(t, writeFixture(t))
	p, err := Aggregate(f, Options{Goroutines: 4, Buckets: 20})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	want := []struct {
		label string
		busy  uint64
	}{
		{"1 × main.crunch in main.crunch", 100},
		{"1 × main.serve in main.handle", 60},
		{"2 × main.worker in [chan receive]", 30}, // a member's 100 samples each way: the busier
		{"10 × main.idle in [select]", 0},         // ahead of the next: more goroutines
		{"3 × runtime.bgsweep in [GC sweep wait]", 0},
	}
	if len(p.Groups) != len(want) || p.GroupCount != len(want) {
		for _, g := range p.Groups {
			t.Logf("%d × %s in %s: busy %d", g.Goroutines, g.Entry, g.Where, g.Busy)
		}
		t.Fatalf("%d groups (of %d), want %d", len(p.Groups), p.GroupCount, len(want))
	}
	for i, w := range want {
		g := p.Groups[i]
		if got := fmt.Sprintf("%d × %s in %s", g.Goroutines, g.Entry, g.Where); got != w.label || g.Busy != w.busy {
			t.Errorf("group %d = %q busy %d, want %q busy %d", i, got, g.Busy, w.label, w.busy)
		}
	}
	// Four lanes: the busiest goroutine of each of the first four groups.
	if len(p.Lanes) != 4 {
		t.Fatalf("%d lanes, want 4", len(p.Lanes))
	}
	for i, l := range p.Lanes {
		if l.Group != i || len(p.Groups[i].Lanes) != 1 || p.Groups[i].Lanes[0] != i {
			t.Errorf("lane %d (g%d) in group %d; group's lanes %v", i, l.Goroutine, l.Group, p.Groups[i].Lanes)
		}
	}
	if l := p.Lanes[0]; l.Goroutine != 11 || l.Entry != "main.crunch" || l.Busy != 100 {
		t.Errorf("first lane = %+v, want g11 main.crunch", l)
	}
	if p.DefaultView() != ViewOnCPU {
		t.Errorf("default view %v, want on CPU", p.DefaultView())
	}
	if mode, inferred := p.Mode(); mode != "wall" || !inferred {
		t.Errorf("mode %q (inferred %v), want wall, inferred", mode, inferred)
	}
}

// TestGroupsMoreGoroutines: with lanes for more goroutines than groups,
// the second round takes each group's next busiest.
func TestGroupsMoreGoroutines(t *testing.T) {
	f := proftest.Open(t, writeFixture(t))
	p, err := Aggregate(f, Options{Goroutines: 9, Buckets: 20})
	if err != nil {
		t.Fatal(err)
	}
	// Round one gives each of the 5 groups a lane, round two the workers',
	// the idle and the runtime groups (the others have one goroutine),
	// round three the idle group.
	if got := [3]int{len(p.Groups[2].Lanes), len(p.Groups[3].Lanes), len(p.Groups[4].Lanes)}; got != [3]int{2, 3, 2} {
		t.Errorf("workers', idle and runtime groups have %v lanes, want 2, 3 and 2", got)
	}
	if len(p.Lanes) != 9 {
		t.Errorf("%d lanes, want 9", len(p.Lanes))
	}
}
