package own

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// shortGrace sets the grace to d for the test.
func shortGrace(t testing.TB, d time.Duration) {
	old := grace
	grace = d
	t.Cleanup(func() { grace = old })
}

// TestGo: a goroutine started by Go is the profiler's from before Go
// returns until Grace after it ends, then no longer; the caller is not.
func TestGo(t *testing.T) {
	shortGrace(t, 200*time.Millisecond)
	ids, stop := make(chan uint64, 1), make(chan struct{})
	v0 := Version()
	Go(func() {
		ids <- goid.Current()
		<-stop
	})
	id := <-ids
	if !Has(id) {
		t.Fatal("the goroutine Go started is not the profiler's")
	}
	if Version() == v0 {
		t.Error("Version did not change when a goroutine was added")
	}
	if Has(goid.Current()) {
		t.Error("Go's caller is the profiler's")
	}
	before := uint64(time.Now().UnixMicro())
	close(stop)
	time.Sleep(20 * time.Millisecond)
	if !HadAt(id, before) {
		t.Error("a goroutine that ended is not the profiler's for the time before")
	}
	if !testutil.WaitFor(5*time.Second, func() bool { return !Has(id) }) {
		t.Fatal("an ended goroutine is still the profiler's after its margin")
	}
	if !HadAt(id, uint64(time.Now().Add(-time.Second).UnixMicro())) {
		t.Error("an ended goroutine is not the profiler's a second before it ended")
	}
	v1 := Version() // it has ended: Has said so
	if !testutil.WaitFor(5*time.Second, func() bool { return Version() != v1 }) {
		t.Error("Version did not change when a grace ended")
	}
	if HadAt(id, 0) {
		t.Error("an ended goroutine is still known after its grace")
	}
}

// TestEnterNests: Enter's calls nest, leave is idempotent, and a goroutine
// that left is the program's again after its grace.
func TestEnterNests(t *testing.T) {
	shortGrace(t, 100*time.Millisecond)
	id := goid.Current()
	outer := Enter()
	inner := Enter()
	if !Has(id) {
		t.Fatal("inside Enter, the goroutine is not the profiler's")
	}
	inner()
	inner()
	if !Has(id) {
		t.Fatal("the outer Enter ended with the inner one")
	}
	mu.Lock()
	n := live[id]
	mu.Unlock()
	if n != 1 {
		t.Fatalf("after one of two leaves, %d claims, want 1", n)
	}
	before := uint64(time.Now().UnixMicro())
	outer()
	if !HadAt(id, before) {
		t.Error("a goroutine that left is not the profiler's for the time before")
	}
	if !testutil.WaitFor(5*time.Second, func() bool { return !Has(id) }) {
		t.Fatal("a goroutine that left is still the profiler's after its grace")
	}
	leave := Enter() // again: the profiler's again
	defer leave()
	if !Has(id) {
		t.Error("a second Enter after the grace did not take")
	}
}

// TestMaxGone: at most MaxGone ids are kept for their grace, the latest.
func TestMaxGone(t *testing.T) {
	shortGrace(t, time.Hour)
	old := maxGone
	maxGone = 4
	defer func() { maxGone = old }()
	var ids []uint64
	for range 10 {
		c := make(chan uint64, 1)
		Go(func() { c <- goid.Current() })
		id := <-c
		ids = append(ids, id)
		// Each ends before the next starts, so that they leave in order:
		// a goroutine that sent its id may leave after the next one did
		// (it did under load, and the wrong four were kept).
		if !testutil.WaitFor(5*time.Second, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return live[id] == 0
		}) {
			t.Fatal("a goroutine did not end")
		}
	}
	for i, id := range ids {
		if want := i >= len(ids)-4; HadAt(id, 0) != want {
			t.Errorf("goroutine %d of %d: kept = %v, want %v", i, len(ids), !want, want)
		}
	}
	mu.Lock()
	n := len(left)
	mu.Unlock()
	if n > 4 {
		t.Errorf("%d ids kept, want at most 4", n)
	}
}

// TestConcurrent reads the set while goroutines come and go, for the race
// detector.
// TestFilterSharedBits: ids whose filter bits are one (they differ by a
// multiple of filterBits) are told apart by the search, and an id whose
// bit is clear is not in the set.
func TestFilterSharedBits(t *testing.T) {
	const a, b = 1<<40 + 5, 1<<40 + 5 + filterBits
	mu.Lock()
	live[a], live[b] = 1, 1
	publish()
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		delete(live, a)
		delete(live, b)
		publish()
		mu.Unlock()
	})
	for id, want := range map[uint64]bool{a: true, b: true, a - filterBits: false, b + filterBits: false, a + 1: false} {
		if got := Has(id); got != want {
			t.Errorf("Has(%d) = %v, want %v", id, got, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	shortGrace(t, 10*time.Millisecond)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				Has(goid.Current())
				Version()
			}
		})
	}
	for range 200 {
		Go(func() {})
		leave := Enter()
		leave()
	}
	stop.Store(true)
	wg.Wait()
}

var sinkBool bool

// BenchmarkHas measures Has against sync.Map, the alternative: a miss is
// what the sampler asks for nearly every goroutine it meets. "set" asks of
// one id between the set's ids, again and again; "set-many" of 4,096
// ids in turn, as the sampler asks of each goroutine it writes, where a
// search's branches are not learnt.
func BenchmarkHas(b *testing.B) {
	for _, n := range []int{0, 16, 256} {
		s := &set{version: 1}
		var m sync.Map
		for i := range n {
			id := uint64(1000 + 2*i)
			s.ids = append(s.ids, id)
			s.filter.add(id)
			s.until = append(s.until, 0)
			s.upto = append(s.upto, 0)
			m.Store(id, struct{}{})
		}
		probe := uint64(1001) // a miss between ids
		old := cur.Swap(s)
		b.Run("set/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				sinkBool = Has(probe)
			}
		})
		b.Run("set-many/"+strconv.Itoa(n), func(b *testing.B) {
			i := uint64(0)
			for b.Loop() {
				sinkBool = Has(900 + i%4096)
				i++
			}
		})
		b.Run("sync.Map/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				_, sinkBool = m.Load(probe)
			}
		})
		cur.Store(old)
	}
}

// BenchmarkEnter measures a claim and its release (once per goroutine the
// profiler starts, and per request httpprof serves) with 8 ids kept for
// their grace, and with MaxGone.
func BenchmarkEnter(b *testing.B) {
	shortGrace(b, time.Hour)
	old := maxGone
	defer func() { maxGone = old }()
	for _, n := range []int{8, MaxGone} {
		maxGone = n
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				Enter()()
			}
		})
	}
}
