package speedscope_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gotachyon/profiler/export/speedscope"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Export two goroutines; each gets a sampled profile of its own, and every
// run of equal stacks weighs its length × the 1000 µs interval.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.tachyon")
	w, err := writer.Create(path, writer.Options{StartTime: 0, Interval: 1000})
	if err != nil {
		log.Fatal(err)
	}
	produce := []tachyon.Frame{{File: "main.go", Func: "main.produce", Line: 20}}
	consume := []tachyon.Frame{{Func: "[chan receive]"}, {File: "main.go", Func: "main.consume", Line: 9}}
	for ts := uint64(0); ts < 3000; ts += 1000 {
		w.WriteSample(&writer.Sample{ThreadID: 6, Timestamp: ts, Status: 3, Frames: produce})
		w.WriteSample(&writer.Sample{ThreadID: 5, Timestamp: ts, Frames: consume})
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	var out strings.Builder // or an OUT.json file for speedscope
	if err := speedscope.Write(&out, f, speedscope.Options{Name: "example"}); err != nil {
		log.Fatal(err)
	}
	s := out.String()
	fmt.Println(s[strings.Index(s, `"profiles"`):])
	// Output:
	// "profiles":[{"type":"sampled","name":"goroutine 6","unit":"microseconds","startValue":0,"endValue":3000,"samples":[[0]],"weights":[3000]},{"type":"sampled","name":"goroutine 5","unit":"microseconds","startValue":0,"endValue":3000,"samples":[[2,1]],"weights":[3000]}]}
}
