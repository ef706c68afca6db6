package nytprof

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

// perSample is a Source that reads a file sample by sample
// (reader.Samples.Next), as the export did before it read runs.
type perSample struct{ fileSource }

func (s perSample) Each(fn func(*Sample) error) error {
	it := s.f.Samples()
	defer it.Close()
	for it.Next() {
		r := it.Sample()
		if err := fn(&Sample{Thread: r.ThreadID, Interp: r.InterpreterID, Status: r.Status, Stack: r.Stack}); err != nil {
			return err
		}
	}
	return it.Err()
}

// TestRunsSameAsSamples checks that the export of a file read run by run
// is byte for byte the export of the same file read sample by sample.
func TestRunsSameAsSamples(t *testing.T) {
	for name, f := range proftest.RunInputs(t) {
		for _, opt := range []Options{{}, {OnCPU: true}} {
			t.Run(fmt.Sprintf("%s/oncpu=%v", name, opt.OnCPU), func(t *testing.T) {
				got, want := export(t, FromFile(f), opt), export(t, perSample{fileSource{f}}, opt)
				if !bytes.Equal(got, want) {
					t.Fatalf("run by run: %d bytes, sample by sample: %d bytes, not the same", len(got), len(want))
				}
			})
		}
	}
}

// TestSizeFollowsRecords checks that a wall profile's export grows with
// its runs, not with its samples: ten times the ticks of 200 parked
// goroutines add a few bytes per run of the two busy ones.
func TestSizeFollowsRecords(t *testing.T) {
	short, long := proftest.Wall(t, 200, 400), proftest.Wall(t, 200, 4000)
	bs, bl := export(t, FromFile(short), Options{}), export(t, FromFile(long), Options{})
	rs, rl := countRuns(t, short), countRuns(t, long)
	if extra := len(bl) - len(bs); extra > 8*(rl-rs) {
		t.Errorf("%d runs: %d bytes, %d runs: %d bytes; want at most 8 bytes per extra run", rs, len(bs), rl, len(bl))
	}
	d, err := decode(bl)
	if err != nil {
		t.Fatal(err)
	}
	var stmts uint64
	for _, l := range d.lines {
		stmts += l.count
	}
	// Each parked goroutine arrives once, the 20 that wake twice; the
	// busy ones at most once per run.
	if stmts < 220 || stmts > uint64(rl) {
		t.Errorf("%d statements, want one per arrival at a stack (%d runs)", stmts, rl)
	}
}

// countRuns returns the number of runs of f (reader.Samples.NextRun).
func countRuns(t *testing.T, f *reader.File) int {
	it := f.Samples()
	defer it.Close()
	n := 0
	for it.NextRun() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
