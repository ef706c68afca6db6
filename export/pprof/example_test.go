package pprof_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Export a profile in which goroutine 5 waits on a channel: the Go
// sampler's "[chan receive]" frame becomes the wait_reason label, and the
// values are samples, wall and on_cpu: the waiting goroutine has no
// on_cpu time.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.tachyon")
	w, err := writer.Create(path, writer.Options{StartTime: 0, Interval: 1000})
	if err != nil {
		log.Fatal(err)
	}
	recv := []tachyon.Frame{{Func: "[chan receive]"}, {File: "main.go", Func: "main.consume", Line: 9}}
	run := []tachyon.Frame{{File: "main.go", Func: "main.produce", Line: 20}}
	for ts := uint64(0); ts < 3000; ts += 1000 {
		w.WriteSample(&writer.Sample{ThreadID: 5, Timestamp: ts, Frames: recv})
		w.WriteSample(&writer.Sample{ThreadID: 6, Timestamp: ts, Status: tachyon.StatusOnCPU | tachyon.StatusHasGIL, Frames: run})
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	var out bytes.Buffer // or an OUT.pb.gz file for go tool pprof
	if err := pprof.Write(&out, f, pprof.Options{}); err != nil {
		log.Fatal(err)
	}
	p, err := profile.Parse(&out)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range p.Sample {
		fmt.Println(s.Location[0].Line[0].Function.Name, s.Value, s.Label)
	}
	// Output:
	// main.consume [3 3000000 0] map[goroutine:[5] state:[blocked] wait_reason:[chan receive]]
	// main.produce [3 3000000 3000000] map[goroutine:[6] state:[running]]
}
