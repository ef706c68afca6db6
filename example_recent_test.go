package profiler_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/reader"
)

// A service keeps the last minute in memory, without a file, and writes
// the last second on demand while profiling goes on (httpprof's
// ?recent=1s does the same over HTTP).
func ExampleRecent() {
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(time.Minute, 16<<20), profiler.WithQuiet(true))
	defer p.Stop()
	time.Sleep(1500 * time.Millisecond) // ... the service runs ...

	var buf bytes.Buffer
	span, err := profiler.Recent(&buf, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := reader.NewFileBytes(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Verify() == nil, span.To.Sub(span.From), span.Samples > 0)
	// Output: true 1s true
}

// A middleware takes a capture when a request passes its deadline: the
// call returns at once, and the capture (30 s before it and 5 s after, by
// default; here 1 s and none) is written to the capture directory once
// its samples are in, or at Stop. A storm of slow requests makes one
// capture per period; the others are counted.
func ExampleCapture() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(time.Minute, 0),
		profiler.WithCaptureDir(dir), profiler.WithCaptureSpan(time.Second, 0), profiler.WithQuiet(true))
	time.Sleep(1500 * time.Millisecond) // ... requests are served ...

	for range 3 { // three slow requests in a row
		profiler.Capture("deadline")
	}
	p.Stop() // writes the capture under way
	names, _ := filepath.Glob(filepath.Join(dir, "capture-*-deadline-*.tachyon"))
	st := p.CaptureStats()
	fmt.Println(len(names), strings.HasPrefix(filepath.Base(names[0]), "capture-"), st.Taken, st.Limited)
	// Output: 1 true 1 2
}
