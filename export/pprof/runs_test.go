package pprof

import (
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestRunsMatchSamples checks the export, which reads runs of samples,
// against a tally of the same file read one sample at a time: the same
// count per (goroutine, state, stack), on the files with runs of
// proftest.RunInputs (a wall profile, the vectors, the demo profiles).
func TestRunsMatchSamples(t *testing.T) {
	for name, f := range proftest.RunInputs(t) {
		p, err := Convert(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := exportedCounts(p), sampleCounts(t, f); !maps.Equal(got, want) {
			t.Errorf("%s: %d exported (goroutine, state, stack) differ from the %d read one by one", name, len(got), len(want))
		}
	}
}

// exportedCounts returns the samples count of p per "goroutine state
// stack", the stack outermost first as func:line;...
func exportedCounts(p *profile.Profile) map[string]int64 {
	m := map[string]int64{}
	for _, s := range p.Sample {
		var fr []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			ln := s.Location[i].Line[0]
			fr = append(fr, ln.Function.Name+":"+strconv.FormatInt(ln.Line, 10))
		}
		m[s.Label[LabelGoroutine][0]+" "+s.Label[LabelState][0]+" "+strings.Join(fr, ";")] += s.Value[0]
	}
	return m
}

// sampleCounts tallies f's samples one by one (Next) as exportedCounts
// does, leaving out a wait-reason frame.
func sampleCounts(t *testing.T, f *reader.File) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		var fr []string
		for i := len(s.Stack) - 1; i >= 0; i-- {
			frame := f.Frame(s.Stack[i])
			if _, ok := tachyon.WaitReason(frame); ok && i == 0 {
				continue
			}
			fr = append(fr, frame.Func+":"+strconv.Itoa(int(frame.Line)))
		}
		m[strconv.FormatUint(s.ThreadID, 10)+" "+s.Status.State().String()+" "+strings.Join(fr, ";")]++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}
