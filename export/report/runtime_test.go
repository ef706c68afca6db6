package report

import (
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestRuntimeGroup checks, on a profile of every class of state, that the
// runtime's system goroutines are one group after the program's, out of
// the call tree and the views, that a system call and a runnable sample
// under [no CPU sample] are off the CPU, and that Options.Runtime puts the
// runtime's goroutines back in full.
func TestRuntimeGroup(t *testing.T) {
	f := proftest.Open(t, proftest.Classes(t))
	p, err := Aggregate(f, Options{Buckets: 20})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	const rtSamples = 3 * proftest.ClassesTicks
	last := p.Groups[len(p.Groups)-1]
	if !last.Runtime || last.Entry != RuntimeGroup || last.Goroutines != 3 || last.Samples != rtSamples || len(last.Lanes) == 0 {
		t.Errorf("last group %+v, want the 3 runtime goroutines", last)
	}
	for _, g := range p.Groups[:len(p.Groups)-1] {
		if g.Runtime {
			t.Errorf("runtime group before the program's last: %+v", g)
		}
	}
	if want := p.Samples - rtSamples; p.ViewSamples(ViewAll) != want || p.Nodes[0].Total != want {
		t.Errorf("view all %d, tree %d samples; want %d, the program's", p.ViewSamples(ViewAll), p.Nodes[0].Total, want)
	}
	// On CPU: the hot function (100) and the warm one (40), nothing else.
	if got := p.ViewSamples(ViewOnCPU); got != 140 || p.DefaultView() != ViewOnCPU {
		t.Errorf("on CPU %d samples, default view %v; want 140, on CPU", got, p.DefaultView())
	}
	self := onCPUSelf(p)
	if len(self) != 2 || self[proftest.ClassesHot] != 100 || self[proftest.ClassesWarm] != 40 {
		t.Errorf("on-CPU self samples %v, want %s 100 and %s 40", self, proftest.ClassesHot, proftest.ClassesWarm)
	}
	for _, fn := range p.Functions {
		if fn.Func == tachyon.RuntimeRoot || fn.Func == proftest.ClassesGC || fn.Func == proftest.ClassesSweep {
			t.Errorf("runtime function %s in the tree", fn.Func)
		}
	}
	// Off CPU: blocked and both system calls; waiting: the runnable one.
	if got, want := p.ViewSamples(ViewOffCPU), p.Shown[tachyon.Blocked]+2*proftest.ClassesTicks; got != want || p.Shown[tachyon.Syscall] != 2*proftest.ClassesTicks {
		t.Errorf("off CPU %d samples, want %d with %d in syscalls", got, want, p.Shown[tachyon.Syscall])
	}
	if got := p.ViewSamples(ViewWaiting); got != proftest.ClassesTicks {
		t.Errorf("waiting for CPU %d samples, want %d", got, proftest.ClassesTicks)
	}

	// Past Options.Groups, the runtime group still comes last.
	p, err = Aggregate(f, Options{Buckets: 20, Groups: 2, Goroutines: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	if len(p.Groups) != 3 || !p.Groups[2].Runtime || p.Groups[1].Runtime {
		t.Errorf("Groups 2: groups %+v, want two of the program's and the runtime's", p.Groups)
	}
	for i, l := range p.Lanes {
		if l.Group < 0 || l.Group >= len(p.Groups) || !slices.Contains(p.Groups[l.Group].Lanes, i) {
			t.Errorf("Groups 2: lane %d in group %d", i, l.Group)
		}
	}

	p, err = Aggregate(f, Options{Buckets: 20, Runtime: true})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	if p.ViewSamples(ViewAll) != p.Samples || onCPUSelf(p)[proftest.ClassesGC] != 60 {
		t.Errorf("Runtime: view all %d of %d samples, on-CPU self %v; want all, %s 60", p.ViewSamples(ViewAll), p.Samples, onCPUSelf(p), proftest.ClassesGC)
	}
	entries := map[string]int{}
	for _, g := range p.Groups {
		if g.Runtime {
			t.Errorf("Runtime: a runtime group %+v", g)
		}
		entries[g.Entry] += g.Goroutines
	}
	if entries["runtime.gcBgMarkWorker"] != 1 || entries[proftest.ClassesSweep] != 2 {
		t.Errorf("Runtime: groups by entry %v, want the GC worker and the 2 sweepers by their functions", entries)
	}
}

// onCPUSelf returns the on-CPU samples of each function innermost.
func onCPUSelf(p *Profile) map[string]uint64 {
	self := map[string]uint64{}
	for _, c := range p.Cells {
		if c.Class == OnCPU {
			self[p.Frame(p.Nodes[c.Node].Frame).Func] += c.N
		}
	}
	return self
}
