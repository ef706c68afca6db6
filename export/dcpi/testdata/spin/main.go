// Command spin is the test program of package dcpi and of dcpi.AtStop:
// "spin DIR DURATION" profiles itself (CPU mode) while spinning in
// main.spin, writing DIR/spin.bin (Tachyon) and DIR/spin.dcpi (live DCPI).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	profiler "github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/sampler"
)

var sink uint64

//go:noinline
func spin(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	return x
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: spin DIR DURATION")
		os.Exit(2)
	}
	d, err := time.ParseDuration(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p := profiler.Start(
		profiler.WithPath(filepath.Join(os.Args[1], "spin.bin")),
		profiler.WithMode(sampler.CPU),
		profiler.WithBackend(sampler.Trace),
		profiler.WithRate(250),
		profiler.WithObserver(dcpi.AtStop(filepath.Join(os.Args[1], "spin.dcpi"), 250)))
	if err := p.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		sink += spin(1 << 20)
	}
	if err := p.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(p.Backend())
}
