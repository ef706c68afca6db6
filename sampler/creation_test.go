package sampler

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// spawnRecord is a goroutine a test started and where, by the program's
// own record: the function and line of its go statement.
type spawnRecord struct {
	id   uint64
	site string
}

// spawnAt starts a goroutine parked on stop at a go statement whose site
// it records (runtime.Caller on the line before it), and another from a
// closure one call deeper.
//
//go:noinline
func spawnAt(stop chan struct{}, wg *sync.WaitGroup) []spawnRecord {
	ids := make(chan uint64)
	var out []spawnRecord
	pc, file, line, _ := runtime.Caller(0)
	go func() { ids <- goid.Current(); labelChild(stop); wg.Done() }()
	out = append(out, spawnRecord{<-ids, tachyon.CreationSite(runtime.FuncForPC(pc).Name(), file, line+1)})
	func() {
		pc, file, line, _ := runtime.Caller(0)
		go func() { ids <- goid.Current(); labelChild(stop); wg.Done() }()
		out = append(out, spawnRecord{<-ids, tachyon.CreationSite(runtime.FuncForPC(pc).Name(), file, line+1)})
	}()
	return out
}

// TestCreationSites checks every sample of goroutines started before and
// after Start against the program's own record of where it started
// them: the trace backend labels those it saw created (the trace has no
// creation for the others, which carry none), the snapshot backend all,
// from runtime.Stack; with NoCreationLabels, none.
func TestCreationSites(t *testing.T) {
	for _, c := range []struct {
		b       Backend
		before  bool // labels the goroutines started before Start
		noLabel bool
	}{{Trace, false, false}, {Snapshot, true, false}, {Trace, false, true}, {Snapshot, false, true}} {
		// Every goroutine needs samples: beside other processes the
		// snapshot backend's dumps come seldom, and 100 ms once gave
		// none of the later goroutines; the run is retried longer.
		testutil.Retry(t, 100*time.Millisecond, 4, func(d time.Duration) error {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(4)
			early := spawnAt(stop, &wg)
			sink := newMemSink()
			s, err := Start(Config{Mode: Wall, Rate: 100, Backend: c.b, NoCreationLabels: c.noLabel}, sink)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			late := spawnAt(stop, &wg)
			time.Sleep(d)
			if _, err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			close(stop)
			wg.Wait()
			var missing []uint64
			check := func(recs []spawnRecord, labelled bool) {
				for _, r := range recs {
					want := r.site
					if !labelled || c.noLabel {
						want = ""
					}
					smps := sink.of(r.id)
					if len(smps) == 0 {
						missing = append(missing, r.id)
					}
					for _, smp := range smps {
						if got := createdOf(smp.stack); got != want {
							t.Errorf("%v (no labels: %v): g%d: created_by %q, want %q", c.b, c.noLabel, r.id, got, want)
							break
						}
					}
				}
			}
			check(early, c.before)
			check(late, true)
			t.Logf("%v: %v", c.b, late)
			if len(missing) > 0 {
				return fmt.Errorf("%v: no samples of goroutines %v", c.b, missing)
			}
			return nil
		})
	}
}

// TestSitesHandedOver: a trace backend that follows another under Auto
// labels a goroutine created before its trace began with the site the
// previous backend knew (emitter.sites), and the others with none.
func TestSitesHandedOver(t *testing.T) {
	data := recordTrace(t, 20, 200*time.Millisecond)
	parse := func(sites map[uint64]string) *memSink {
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer closeSource(rd)
		sink := newMemSink()
		em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
		em.sites = sites
		if err := newTraceBackend(em, rd, time.Now()).consume(); err != nil {
			t.Fatal(err)
		}
		return sink
	}
	var parked []uint64
	for _, s := range parse(nil).all() {
		if s.hasFunc("sampler.blockChan2") && createdOf(s.stack) == "" && !slices.Contains(parked, s.gid) {
			parked = append(parked, s.gid)
		}
	}
	if len(parked) < 2 {
		t.Fatalf("%d parked goroutines without a site", len(parked))
	}
	const site = "main.before main.go:7"
	sink := parse(map[uint64]string{parked[0]: site})
	for _, id := range parked[:2] {
		want := ""
		if id == parked[0] {
			want = site
		}
		smps := sink.of(id)
		if len(smps) == 0 {
			t.Fatalf("g%d: no samples", id)
		}
		for _, s := range smps {
			if got := createdOf(s.stack); got != want {
				t.Fatalf("g%d: created_by %q, want %q", id, got, want)
			}
		}
	}
}

// funcSource is a knownSource whose stack id h is one frame, of a
// function of its own (main.fh at main.go line h).
type funcSource struct{ knownSource }

func (s *funcSource) Stack(h uint64) []gotrace.Frame {
	return []gotrace.Frame{{PC: 0x1000 + h, Func: fmt.Sprintf("main.f%d", h), File: "main.go", Line: h}}
}

// TestSiteTableFull: past maxSites distinct sites the table starts
// afresh, and every creator stack, before and after, still gets its own
// site, within a generation and across one.
func TestSiteTableFull(t *testing.T) {
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink()), &funcSource{}, time.Now())
	want := func(h uint64) string { return tachyon.CreationSite(fmt.Sprintf("main.f%d", h), "main.go", int(h)) }
	const n = maxSites + maxSites/2
	for pass := range 2 {
		for h := uint64(1); h <= n; h++ {
			if got := tb.site(h); got != want(h) {
				t.Fatalf("pass %d: site(%d) = %q, want %q", pass, h, got, want(h))
			}
			if h%7 == 0 { // again, from the generation's table
				if got := tb.site(h - 3); got != want(h-3) {
					t.Fatalf("pass %d: site(%d) again = %q, want %q", pass, h-3, got, want(h-3))
				}
			}
		}
		if len(tb.sites.names) > maxSites || len(tb.sites.siteNo) != len(tb.sites.names) {
			t.Fatalf("%d site names, %d frames numbered; at most %d, alike", len(tb.sites.names), len(tb.sites.siteNo), maxSites)
		}
		tb.sites.newGeneration()
	}
}
