package collapsed_test

import (
	"log"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// profile writes a small profile into dir: goroutine 5 waits on a channel
// for three ticks, goroutine 6 runs main.produce for two.
func profile(dir string) string {
	path := filepath.Join(dir, "p.tachyon")
	w, err := writer.Create(path, writer.Options{Interval: 10_000})
	if err != nil {
		log.Fatal(err)
	}
	main := tachyon.Frame{File: "/app/main.go", Func: "main.main", Line: 7}
	produce := []tachyon.Frame{{File: "/app/main.go", Func: "main.produce", Line: 20}, main}
	consume := []tachyon.Frame{{Func: "[chan receive]"}, {File: "/app/main.go", Func: "main.consume", Line: 9}, main}
	for ts := uint64(0); ts < 30_000; ts += 10_000 {
		w.WriteSample(&writer.Sample{ThreadID: 5, Timestamp: ts, Status: tachyon.StatusOf(tachyon.Blocked, false), Frames: consume})
		if ts < 20_000 {
			w.WriteSample(&writer.Sample{ThreadID: 6, Timestamp: ts, Status: tachyon.StatusOf(tachyon.Running, false), Frames: produce})
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return path
}

// Fold a profile for flamegraph.pl: each line is a stack, outermost
// first, and its sample count. FuncLine writes the wait reason as a bare
// frame; ByGoroutine gives each goroutine a tower of its own.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	f, err := reader.Open(profile(dir))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := collapsed.Write(os.Stdout, f, collapsed.Options{Frames: collapsed.FuncLine, ByGoroutine: true}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// goroutine 5;main.main:7;main.consume:9;[chan receive] 3
	// goroutine 6;main.main:7;main.produce:20 2
}

// Only the samples on a CPU, in the spec's format (file:function:line).
func ExampleWrite_states() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	f, err := reader.Open(profile(dir))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := collapsed.Write(os.Stdout, f, collapsed.Options{States: []tachyon.State{tachyon.Running}}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// /app/main.go:main.main:7;/app/main.go:main.produce:20 2
}
