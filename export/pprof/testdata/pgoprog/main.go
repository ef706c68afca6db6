// Command pgoprog is the program of TestPGO: it profiles its own hot loop
// with gotachyon in CPU mode and exports the profile to pprof at Stop,
// start lines read from its own executable.
package main

import (
	"flag"
	"log"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/sampler"
)

func main() {
	tach := flag.String("tachyon", "cpu.bin", "Tachyon profile to write")
	out := flag.String("pprof", "cpu.pprof", "pprof profile to export at Stop")
	d := flag.Duration("d", time.Second, "how long to run the hot loop")
	flag.Parse()
	p := profiler.Start(profiler.WithPath(*tach), profiler.WithMode(sampler.CPU), profiler.WithQuiet(true),
		profiler.WithExport(*out, pprof.AtStop(pprof.Options{})))
	if err := p.Err(); err != nil {
		log.Fatal(err)
	}
	for end := time.Now().Add(*d); time.Now().Before(end); {
		work(10_000)
	}
	if err := p.Stop(); err != nil {
		log.Fatal(err)
	}
}
