package profiler_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
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
	p := profiler.Start(profiler.WithPath(os.DevNull+"/no/such/file"), profiler.WithMode(sampler.CPU), profiler.WithQuiet(true))
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
