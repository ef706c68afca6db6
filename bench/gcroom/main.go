package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gotachyon/profiler/internal/offheap"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

var (
	liveMB    = flag.Int("live", 800, "the program's own live heap, MB")
	extraMB   = flag.Int("extra", 150, "what the profiler keeps, MB")
	where     = flag.String("where", "none", "where the extra lies: none, heap or off")
	garbageMB = flag.Int("garbage", 120, "garbage made a second, MB, in slices of 8 MB")
	settle    = flag.Duration("settle", 10*time.Second, "time before the window")
	window    = flag.Duration("window", 60*time.Second, "measured window")
)

func main() {
	flag.Parse()
	live := make([][]byte, *liveMB)
	for i := range live {
		live[i] = touch(make([]byte, 1<<20))
	}
	var extra []byte
	switch *where {
	case "heap":
		extra = touch(make([]byte, *extraMB<<20))
	case "off":
		extra = touch(offheap.Make[byte](*extraMB << 20))
	case "none":
	default:
		fmt.Fprintln(os.Stderr, "gcroom: -where is none, heap or off")
		os.Exit(2)
	}
	stop := make(chan struct{})
	go makeGarbage(stop)
	time.Sleep(*settle)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	var sum, peak float64
	n := 0
	for t0 := time.Now(); time.Since(t0) < *window; time.Sleep(100 * time.Millisecond) {
		r := rssMB()
		sum += r
		peak = max(peak, r)
		n++
	}
	close(stop)
	runtime.ReadMemStats(&ms)
	fmt.Printf("where=%s live=%d MB extra=%d MB: RSS mean %.1f MB, peak %.1f MB, %d collections\n",
		*where, *liveMB, *extraMB, sum/float64(n), peak, ms.NumGC-gc0)
	runtime.KeepAlive(live)
	runtime.KeepAlive(extra)
}

// makeGarbage allocates garbageMB a second until stop is closed.
func makeGarbage(stop chan struct{}) {
	const piece = 8 << 20
	every := time.Second * piece / time.Duration(*garbageMB<<20)
	for {
		select {
		case <-stop:
			return
		case <-time.After(every):
			touch(make([]byte, piece))
		}
	}
}

// touch writes a byte of every page of b, so that the pages are resident.
func touch(b []byte) []byte {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return b
}

// rssMB returns the resident set in MB.
func rssMB() float64 { return float64(benchload.RSS()) / (1 << 20) }
