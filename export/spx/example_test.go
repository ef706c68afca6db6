package spx_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/spx"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Write a profile of two goroutines as SPX reports, one per goroutine:
// each report is a metadata file and a data file that SPX's viewer lists.
func ExampleWriteDir() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.tachyon")
	w, err := writer.Create(path, writer.Options{Interval: 1000})
	if err != nil {
		log.Fatal(err)
	}
	work := []tachyon.Frame{{File: "main.go", Func: "main.work", Line: 12}, {File: "main.go", Func: "main.main", Line: 5}}
	wait := []tachyon.Frame{{Func: "[chan receive]"}, {File: "main.go", Func: "main.consume", Line: 20}}
	for ts := uint64(0); ts < 3000; ts += 1000 {
		w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: ts, Status: tachyon.StatusOnCPU | tachyon.StatusHasGIL, Frames: work})
		w.WriteSample(&writer.Sample{ThreadID: 7, Timestamp: ts, Frames: wait})
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	reports, err := spx.WriteDir(filepath.Join(dir, "spx"), f, spx.Options{Layout: spx.PerGoroutine})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range reports {
		fmt.Printf("goroutine %d: %d samples\n", r.Goroutine, r.Samples)
	}
	// Output:
	// goroutine 1: 3 samples
	// goroutine 7: 3 samples
}
