package limits_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// An export past one of its bounds fails with a *limits.Error, which says
// which bound and its value: here collapsed's bytes of folded stacks, set
// far too low for a profile of one stack.
func ExampleError() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.tachyon")
	w, err := writer.Create(path, writer.Options{Interval: 10_000})
	if err != nil {
		log.Fatal(err)
	}
	w.WriteSample(&writer.Sample{ThreadID: 1, Frames: []tachyon.Frame{{File: "/app/main.go", Func: "main.main", Line: 7}}})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	_, err = collapsed.Lines(f, collapsed.Options{MaxBytes: 8})
	var le *limits.Error
	if errors.As(err, &le) {
		fmt.Println(le.Limit == limits.FoldedBytes, le.Max)
		fmt.Println(le)
	}
	// Output:
	// true 8
	// the profile's distinct folded stacks take more than 8 bytes, the limit on what the export keeps in memory
}
