package collapsed

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestRunsSameAsSamples checks Lines, which reads runs, against a fold of
// the samples one by one, on the public vectors and a wall profile of
// parked goroutines.
func TestRunsSameAsSamples(t *testing.T) {
	files := proftest.RunInputs(t)
	opts := []Options{{}, {Frames: Func, ByGoroutine: true}, {States: []tachyon.State{tachyon.Runnable}}}
	for name, f := range files {
		for _, o := range opts {
			got, err := Lines(f, o)
			if err != nil {
				t.Fatal(err)
			}
			if want := foldSamples(t, f, o); !slices.Equal(got, want) {
				t.Errorf("%s %+v: run by run\n%v\nsample by sample\n%v", name, o, got, want)
			}
		}
	}
}

// foldSamples folds f sample by sample, as Lines is documented to.
func foldSamples(t *testing.T, f *reader.File, o Options) []Line {
	counts := map[string]uint64{}
	names := map[uint32]string{} // each frame's text, made once
	var frames []string
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		if len(s.Stack) == 0 || (len(o.States) > 0 && !slices.Contains(o.States, s.Status.State())) {
			continue
		}
		frames = frames[:0]
		if o.ByGoroutine {
			frames = append(frames, "goroutine "+strconv.FormatUint(s.ThreadID, 10))
		}
		for j := len(s.Stack) - 1; j >= 0; j-- {
			name, ok := names[s.Stack[j]]
			if !ok {
				name = string(appendFrame(nil, f.Frame(s.Stack[j]), o.Frames))
				names[s.Stack[j]] = name
			}
			frames = append(frames, name)
		}
		counts[strings.Join(frames, ";")]++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	var lines []Line
	for s, n := range counts {
		lines = append(lines, Line{s, n})
	}
	return sortLines(mergeLines(lines))
}
