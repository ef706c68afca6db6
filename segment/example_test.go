package segment_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// Write three seconds of one goroutine's samples as segments of a second
// each, then list the finalized files: their names sort by start time and
// say which run wrote them.
func ExampleWriter() {
	dir, err := os.MkdirTemp("", "segments")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	start := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	t0, step := uint64(start.UnixMicro()), uint64(10_000) // µs
	w, err := segment.New(segment.Options{
		Dir: dir, Prefix: "api", Run: "0badcafe",
		StartTime: t0, Period: time.Second, Interval: step,
	})
	if err != nil {
		log.Fatal(err)
	}
	serve := w.Frame(tachyon.Frame{File: "main.go", Func: "main.serve", Line: 12})
	g := w.NewThread(7, 0)
	for ts := t0; ts < t0+3_000_000; ts += step {
		if err := g.Write(ts, tachyon.StatusOf(tachyon.Running, false), []uint32{serve}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"+segment.Ext))
	for _, name := range names {
		f, _ := segment.ParseName(filepath.Base(name))
		fmt.Println(filepath.Base(name), f.Start.Format(time.TimeOnly), f.Seq)
	}
	// Output:
	// api-20260102T150405.000Z-0badcafe-000001.tachyon 15:04:05 1
	// api-20260102T150406.000Z-0badcafe-000002.tachyon 15:04:06 2
	// api-20260102T150407.000Z-0badcafe-000003.tachyon 15:04:07 3
}

// A segment's name, and what ParseName reads back from it.
func ExampleParseName() {
	start := time.Date(2026, 1, 2, 15, 4, 5, 250_000_000, time.UTC)
	name := segment.Name("api", "0badcafe", uint64(start.UnixMicro()), 42)
	f, ok := segment.ParseName(name)
	fmt.Println(name)
	fmt.Println(ok, f.Prefix, f.Start.Format(time.RFC3339Nano), f.Run, f.Seq)
	// Output:
	// api-20260102T150405.250Z-0badcafe-000042.tachyon
	// true api 2026-01-02T15:04:05.25Z 0badcafe 42
}
