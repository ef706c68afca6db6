package writer_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Example writes two samples through the fast path and reads them back.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "prof.bin")

	w, err := writer.Create(path, writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd})
	if err != nil {
		panic(err)
	}
	// Intern frames once, then write stacks of frame indices, innermost first.
	main := w.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 10})
	work := w.Frame(tachyon.Frame{File: "main.go", Func: "main.work", Line: 42})
	w.WriteStack(1, 0, 1_010_000, tachyon.StatusOnCPU|tachyon.StatusHasGIL, []uint32{work, main})
	w.WriteStack(1, 0, 1_020_000, tachyon.StatusOnCPU|tachyon.StatusHasGIL, []uint32{work, main})
	if err := w.Close(); err != nil { // finalizes and closes the created file
		panic(err)
	}

	f, err := reader.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		fmt.Println(s.Encoding, s.ThreadID, s.Timestamp, it.Frames(nil))
	}
	fmt.Println(it.Err())
	// Output:
	// FULL 1 1010000 [{main.go main.work 42} {main.go main.main 10}]
	// REPEAT 1 1020000 [{main.go main.work 42} {main.go main.main 10}]
	// <nil>
}

// ExampleWriter_NewThread keeps one handle per goroutine, as a sampler
// does: a parked goroutine's first sample, then its next ticks as one run
// of repeats.
func ExampleWriter_NewThread() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "prof.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1_000_000, Interval: 10_000})
	if err != nil {
		panic(err)
	}
	park := w.Frame(tachyon.Frame{File: "runtime/proc.go", Func: "runtime.gopark", Line: 435})
	main := w.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 10})
	g := w.NewThread(7, 0) // taken once, kept for as long as goroutine 7 lives
	g.Write(1_010_000, 0, []uint32{park, main})
	g.RepeatEvery(1_020_000, 10_000, 3, 0)
	g.Forget() // goroutine 7 ended
	if err := w.Close(); err != nil {
		panic(err)
	}

	f, err := reader.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Println(f.Header.ThreadCount, "thread,", f.Header.SampleCount, "samples")
	// Output: 1 thread, 4 samples
}
