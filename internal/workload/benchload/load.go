// Package benchload holds the synthetic loads and the measures that the
// benchmarks (package bench, commands bench/service and bench/gcroom) and
// the memory tests share: goroutines parked deep in a channel receive,
// goroutine churn, the median and the resident set.
package benchload

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParkDepth is how many frames deep Park's goroutines wait.
const ParkDepth = 10

//go:noinline
func parked(depth int, ch chan struct{}) {
	if depth > 0 {
		parked(depth-1, ch)
		return
	}
	<-ch
}

// Park starts n goroutines blocked ParkDepth frames deep in a channel
// receive and returns what releases them and waits until they have ended.
func Park(n int) (release func()) {
	ch := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { parked(ParkDepth, ch) })
	}
	return func() { close(ch); wg.Wait() }
}

// Churn starts perSec short-lived goroutines a second, in batches every
// millisecond, each sleeping 5 ms, and returns what stops the churn.
func Churn(perSec int) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for owed := 0.0; ; {
			select {
			case <-done:
				return
			case <-t.C:
			}
			for owed += float64(perSec) / 1000; owed >= 1; owed-- {
				go time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	return func() { close(done) }
}

// Median returns the median of v (0 if empty), leaving v unchanged.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// RSS returns the process's resident set in bytes, from
// /proc/self/statm; 0 where that cannot be read.
func RSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}
