package gotrace_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// recordParked traces d (two generations or more) of 500 goroutines parked
// at two places and one that sleeps in steps, blocking and waking.
func recordParked(t testing.TB, d time.Duration) []byte {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	for i := range 500 {
		wg.Go(func() {
			if i%2 == 0 {
				<-stop
				return
			}
			mu.Lock()
			for {
				select {
				case <-stop:
					mu.Unlock()
					return
				default:
				}
				cond.Wait()
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				mu.Lock()
				cond.Broadcast()
				mu.Unlock()
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	time.Sleep(20 * time.Millisecond)
	return testutil.Trace(t, d)
}

// TestSkipSame: with Reader.SkipSame, the events are those without it but
// the status reports that repeat what the goroutine's latest event said:
// its state, with no stack or the same frames as its latest stack.
func TestSkipSame(t *testing.T) {
	data := recordParked(t, 1200*time.Millisecond)
	all := ourLines(t, data)
	got := ourLines(t, data, func(r *gotrace.Reader) { r.SkipSame = true })
	var want []line
	last := map[uint64]string{} // a goroutine's latest stack
	skipped := 0
	for _, l := range all {
		if l.kind != "go" {
			want = append(want, l)
			continue
		}
		if l.from == l.to && (l.stack == "" || l.stack == last[l.g]) {
			skipped++
			continue
		}
		if l.stack != "" {
			last[l.g] = l.stack
		}
		if l.to == "NotExist" {
			delete(last, l.g)
		}
		want = append(want, l)
	}
	if skipped == 0 {
		t.Fatal("no status report repeats a goroutine's latest event")
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("event %d of %d differs:\nwant %+v\ngot  %+v", i, len(want), want[i], got[i])
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	t.Logf("%d of %d events left out", skipped, len(all))
}

// TestEnough: once Reader.Enough says so at a status report SkipSame
// leaves out, the trace ends there: the events read are those before the
// report, the same as without Enough, and it is not asked again.
func TestEnough(t *testing.T) {
	data := recordParked(t, 1200*time.Millisecond)
	skip := func(r *gotrace.Reader) { r.SkipSame = true }
	var asked []gotrace.Time
	ourLines(t, data, skip, func(r *gotrace.Reader) {
		r.Enough = func(t gotrace.Time) bool { asked = append(asked, t); return false }
	})
	if len(asked) < 100 {
		t.Fatalf("Enough asked %d times, want once per report left out", len(asked))
	}
	want := ourLines(t, data, skip)
	k, calls := len(asked)/2, 0
	got := ourLines(t, data, skip, func(r *gotrace.Reader) {
		r.Enough = func(gotrace.Time) bool { calls++; return calls == k }
	})
	if calls != k {
		t.Fatalf("Enough asked %d times, want %d: once it said so, no more", calls, k)
	}
	if len(got) == 0 || len(got) >= len(want) {
		t.Fatalf("%d events read, want fewer than the %d of the whole trace", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d differs:\nwant %+v\ngot  %+v", i, want[i], got[i])
		}
	}
	if next := want[len(got)]; next.time < int64(asked[k-1]) {
		t.Errorf("the first event not read, at %d, comes before the report that ended the trace, at %d", next.time, asked[k-1])
	}
}
