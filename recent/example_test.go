package recent_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/recent"
	"github.com/gotachyon/profiler/tachyon"
)

// Keep the last minute of a profile, and write the half second that
// mattered as a Tachyon file. Here one goroutine is sampled at 100 Hz for
// a second by hand, as the sampler would, and then the sampling stops
// (Close); while it goes on, WriteFile waits for the sampler's next
// watermark past the span to finalize the open chunk.
func ExampleWindow_WriteFile() {
	start := time.Date(2026, 1, 2, 15, 4, 0, 0, time.UTC)
	t0, step := uint64(start.UnixMicro()), uint64(10_000) // µs
	w, err := recent.New(recent.Options{Duration: time.Minute, StartTime: t0, Interval: step})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Release()
	serve := w.Frame(tachyon.Frame{File: "main.go", Func: "main.serve", Line: 12})
	g := w.NewThread(7)
	for ts := t0; ts < t0+1_000_000; ts += step {
		if err := g.Write(ts, tachyon.StatusOf(tachyon.Running, false), []uint32{serve}); err != nil {
			log.Fatal(err)
		}
	}
	g.Flush()                   // ends the run of repeats the samples made
	w.Watermark(t0 + 1_000_000) // the sampler vouches for the whole second
	w.Close()                   // and stops

	var out bytes.Buffer // or an *os.File
	span, err := w.WriteFile(context.Background(), &out, start.Add(200*time.Millisecond), start.Add(700*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(span.From.Format("15:04:05.000"), "to", span.To.Format("15:04:05.000"), "UTC:",
		span.Samples, "samples of", span.Goroutines, "goroutine")
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the file verifies:", f.Verify() == nil, "with", f.Header.SampleCount, "samples")
	// Output:
	// 15:04:00.200 to 15:04:00.700 UTC: 50 samples of 1 goroutine
	// the file verifies: true with 50 samples
}
