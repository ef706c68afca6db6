// Command shortstop times the Stop of a short profile of parked
// goroutines: it parks -n goroutines on one channel, profiles for -for
// into a file, and prints Stop's time (and the runtime's part,
// Stats.RuntimeStop), the process's CPU during Stop from rusage, the
// file's size and its samples. A goroutine's ticks reach the file at
// least every four generations, so a profile of 5 s stops before some
// goroutines were ever written: their first records are written at Stop.
// BenchmarkScale measures Stop after a settled window instead.
//
//	go run ./bench/shortstop -n 100000 -for 5s
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	profiler "github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/cputime"
)

func main() {
	n := flag.Int("n", 100_000, "parked goroutines")
	d := flag.Duration("for", 5*time.Second, "the profile's length")
	out := flag.String("o", filepath.Join(os.TempDir(), "shortstop.bin"), "the profile's file")
	flag.Parse()
	block := make(chan struct{})
	for range *n {
		go func() { <-block }()
	}
	time.Sleep(2 * time.Second)
	p := profiler.Start(profiler.WithPath(*out), profiler.WithLogger(log.New(os.Stderr, "", 0)))
	time.Sleep(*d)
	before := cputime.Process()
	t0 := time.Now()
	err := p.Stop()
	stop := time.Since(t0)
	used := cputime.Process() - before
	st := p.Stats()
	size := int64(-1)
	if fi, serr := os.Stat(*out); serr == nil {
		size = fi.Size()
	}
	fmt.Printf("stop %.1f ms (the runtime's %.1f), CPU %.1f ms, file %d bytes, %d samples\n",
		ms(stop), ms(st.RuntimeStop), ms(used), size, st.Samples)
	if err != nil {
		log.Fatal(err)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
