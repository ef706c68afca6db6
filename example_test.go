package profiler_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/reader"
)

// The one-liner: profile main until it returns.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	run := func() {
		defer profiler.Start(profiler.WithPath(filepath.Join(dir, "prof.bin")), profiler.WithQuiet(true)).Stop()
		// ... the program's work ...
	}
	run()
	f, err := reader.Open(filepath.Join(dir, "prof.bin"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println(f.Verify() == nil, f.Header.Interval)
	// Output: true 10000
}

// Checking Start's error at once, and Stop's.
func ExampleStart() {
	p := profiler.Start(profiler.WithPath(os.DevNull+"/no/such/file"), profiler.WithMode(profiler.CPU), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		fmt.Println("profiling did not start")
	}
	if err := p.Stop(); err != nil {
		fmt.Println("Stop returns the same error")
	}
	// Output:
	// profiling did not start
	// Stop returns the same error
}

// The options' values come from this package: a CPU profile, read
// through runtime.Stack snapshots, stored without compression, needs no
// other import.
func ExampleWithMode() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p := profiler.Start(
		profiler.WithPath(filepath.Join(dir, "cpu.bin")),
		profiler.WithMode(profiler.CPU),
		profiler.WithBackend(profiler.Snapshot),
		profiler.WithCompression(profiler.CompressionNone),
		profiler.WithQuiet(true),
	)
	// ... the program's work ...
	if err := p.Stop(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Backend() == profiler.Snapshot, p.Stats().Mode == profiler.CPU)
	// Output: true true
}
