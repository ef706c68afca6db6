package benchload

import (
	"math"
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

// MeanInterval returns the mean of v and the half-width of its 95 %
// confidence interval (Student's t, the values taken as independent
// draws): the mean lies within mean±half with 95 % confidence. half is
// NaN with fewer than two values.
func MeanInterval(v []float64) (mean, half float64) {
	n := len(v)
	if n == 0 {
		return 0, math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return mean, t975(n-1) * sd / math.Sqrt(float64(n))
}

// t975 returns the 97.5th percentile of Student's t with df degrees of
// freedom (df >= 1): to three places up to 30, and beyond within 0.2 %
// (1.96 + 2.4/df).
func t975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df <= len(table) {
		return table[df-1]
	}
	return 1.96 + 2.4/float64(df)
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
