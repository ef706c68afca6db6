package proftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Open opens the Tachyon file at path, failing tb if it cannot, and closes
// it when tb ends.
func Open(tb testing.TB, path string) *reader.File {
	tb.Helper()
	f, err := reader.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// MillionSamples returns, in memory, the public vector realistic_50k
// repeated 20 times: 1 M realistic samples, the exporters' benchmark input.
func MillionSamples(tb testing.TB) *reader.File {
	tb.Helper()
	return repeatedVector(tb, "realistic_50k", 20)
}

// repeatedVector returns, in memory, the public vector NAME.bin repeated
// rounds times, each round's timestamps shifted past the previous round's.
func repeatedVector(tb testing.TB, name string, rounds int) *reader.File {
	tb.Helper()
	src, err := reader.Open(testutil.Vectors(tb, "tachyon", name+".bin"))
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	h := src.Header
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{StartTime: h.StartTime, Interval: h.Interval})
	if err != nil {
		tb.Fatal(err)
	}
	idx := make([]uint32, len(src.FrameRefs()))
	for i := range idx {
		fr := src.Frame(uint32(i))
		idx[i] = w.Frame(tachyon.Frame{File: fr.File, Func: fr.Func, Line: fr.Line})
	}
	var span uint64
	var stack []uint32
	for r := range uint64(rounds) {
		it := src.Samples()
		for it.Next() {
			s := it.Sample()
			stack = stack[:0]
			for _, i := range s.Stack {
				stack = append(stack, idx[i])
			}
			if err := w.WriteStack(s.ThreadID, s.InterpreterID, s.Timestamp+r*span, s.Status, stack); err != nil {
				tb.Fatal(err)
			}
			if r == 0 {
				span = max(span, s.Timestamp-h.StartTime+h.Interval)
			}
		}
		if err := it.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// WriteSamples writes samples through the writer's convenient path into a
// file in tb's temporary directory and returns its path.
func WriteSamples(tb testing.TB, opts writer.Options, samples []writer.Sample) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "p.tachyon")
	w, err := writer.Create(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range samples {
		if err := w.WriteSample(&samples[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// RunInputs returns files in which samples come in runs, by name, for the
// tests that check an export reading runs against the samples read one by
// one: a wall profile of 300 parked goroutines over 2,500 ticks (Wall),
// every public Tachyon vector and the demo profiles in testdata/demo.
func RunInputs(tb testing.TB) map[string]*reader.File {
	tb.Helper()
	in := map[string]*reader.File{"wall": Wall(tb, 300, 2500)}
	vectors, _ := filepath.Glob(filepath.Join(testutil.Vectors(tb, "tachyon"), "*.bin"))
	demos, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	if len(vectors) == 0 || len(demos) == 0 {
		tb.Fatalf("run inputs: %d vectors, %d demo profiles", len(vectors), len(demos))
	}
	for _, p := range append(vectors, demos...) {
		in[filepath.Base(p)] = Open(tb, p)
	}
	return in
}

// ReadPprof parses the pprof profile at path, failing tb if it cannot.
func ReadPprof(tb testing.TB, path string) *profile.Profile {
	tb.Helper()
	r, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	p, err := profile.Parse(r)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return p
}
