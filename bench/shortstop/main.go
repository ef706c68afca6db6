package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"time"

	profiler "github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/cputime"
)

func main() {
	n := flag.Int("n", 100_000, "parked goroutines")
	d := flag.Duration("for", 5*time.Second, "the profile's length")
	out := flag.String("o", filepath.Join(os.TempDir(), "shortstop.bin"), "the profile's file")
	floor := flag.Bool("floor", false, "time the runtime's own stop of a trace and a CPU profile into io.Discard")
	flag.Parse()
	block := make(chan struct{})
	for range *n {
		go func() { <-block }()
	}
	time.Sleep(2 * time.Second)
	var stopper func() (string, error)
	if *floor {
		stopper = startFloor()
	} else {
		stopper = startProfile(*out)
	}
	time.Sleep(*d)
	before := reading()
	t0 := time.Now()
	detail, err := stopper()
	took := time.Since(t0)
	after := reading()
	fmt.Printf("stop %.1f ms%s, CPU %.1f ms, %d collections, %.1f MB allocated\n",
		ms(took), detail, ms(after.cpu-before.cpu), after.gcs-before.gcs, float64(after.alloc-before.alloc)/1e6)
	if err != nil {
		log.Fatal(err)
	}
}

// startProfile starts a profile into out and returns its Stop, which
// describes the runtime's part and the file.
func startProfile(out string) func() (string, error) {
	p := profiler.Start(profiler.WithPath(out), profiler.WithLogger(log.New(os.Stderr, "", 0)))
	return func() (string, error) {
		err := p.Stop()
		st := p.Stats()
		size := int64(-1)
		if fi, serr := os.Stat(out); serr == nil {
			size = fi.Size()
		}
		return fmt.Sprintf(" (the runtime's %.1f), file %d bytes, %d samples", ms(st.RuntimeStop), size, st.Samples), err
	}
}

// startFloor starts the runtime's execution trace and CPU profile into
// io.Discard, and returns their stop.
func startFloor() func() (string, error) {
	if err := trace.Start(io.Discard); err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		log.Fatal(err)
	}
	return func() (string, error) {
		pprof.StopCPUProfile()
		trace.Stop()
		return " (the floor)", nil
	}
}

// counters are the process's CPU time, collections completed and bytes
// allocated so far.
type counters struct {
	cpu        time.Duration
	gcs, alloc uint64
}

// reading returns the counters now.
func reading() counters {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return counters{cpu: cputime.Process(), gcs: s[0].Value.Uint64(), alloc: s[1].Value.Uint64()}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
