package report_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Aggregate a profile and write its HTML report.
func Example() {
	dir, _ := os.MkdirTemp("", "report")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1, Interval: 1000})
	if err != nil {
		log.Fatal(err)
	}
	main := tachyon.Frame{File: "main.go", Func: "main.main", Line: 7}
	for i := range 4 {
		w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: uint64(1 + i*1000), Status: tachyon.StatusOnCPU,
			Frames: []tachyon.Frame{{File: "main.go", Func: "main.work", Line: 12}, main}})
		w.WriteSample(&writer.Sample{ThreadID: 2, Timestamp: uint64(1 + i*1000),
			Frames: []tachyon.Frame{{Func: "[chan receive]"}, main}})
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	p, err := report.Aggregate(f, report.Options{Buckets: 8})
	if err != nil {
		log.Fatal(err)
	}
	for _, fn := range p.Functions {
		fmt.Printf("%-15s self %d total %d\n", fn.Func, fn.Self, fn.Total)
	}
	for _, g := range p.Groups {
		fmt.Printf("%d × %s in %s: busy %d of %d samples\n", g.Goroutines, g.Entry, g.Where, g.Busy, g.Samples)
	}
	for _, l := range p.Lanes {
		fmt.Printf("g%d %s\n", l.Goroutine, l.Timeline)
	}
	if err := p.WriteHTML(io.Discard); err != nil { // or to report.html
		log.Fatal(err)
	}
	// Output:
	// main.main       self 0 total 8
	// [chan receive]  self 4 total 4
	// main.work       self 4 total 4
	// 2 × main.main in main.work: busy 4 of 8 samples
	// g1 00000000
	// g2 22222222
}
