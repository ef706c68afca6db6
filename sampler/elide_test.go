package sampler

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// TestElideSameSamples holds the system calls and starts folded in
// (elideSyscall, foldStart) to the path of their transitions: a recorded
// trace of a busy HTTP service, parsed in wall mode with and without them,
// gives the same samples, sample for sample, and the same counts. TRACE_BENCH=FILE
// checks a saved trace too (as BenchmarkTraceBusy reads it).
func TestElideSameSamples(t *testing.T) {
	data := recordBusyTrace(t, 400*time.Millisecond)
	check := func(name string, data []byte) {
		on, calls, starts := parseWall(t, data, true)
		off, _, _ := parseWall(t, data, false)
		if on.stats != off.stats {
			t.Errorf("%s: counts %+v with folding, %+v without", name, on.stats, off.stats)
		}
		if len(on.samples) != len(off.samples) {
			t.Errorf("%s: %d samples with folding, %d without", name, len(on.samples), len(off.samples))
		}
		for i := range min(len(on.samples), len(off.samples)) {
			if a, b := on.samples[i], off.samples[i]; a != b {
				t.Errorf("%s: sample %d is\n\t%s\nwith folding, and\n\t%s\nwithout", name, i, a, b)
				break
			}
		}
		t.Logf("%s: %d system calls and %d starts folded in, %d samples", name, calls, starts, len(on.samples))
		if calls == 0 || starts == 0 {
			t.Errorf("%s: %d system calls and %d starts folded in, want some of each", name, calls, starts)
		}
	}
	check("recorded", data)
	if path := os.Getenv("TRACE_BENCH"); path != "" {
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		check(path, saved)
	}
}

// wallParse is what parseWall saw.
type wallParse struct {
	samples []string // each sample, in the order of goroutine and time
	stats   struct{ samples, ticks, cpuSamples, noCPU, cpuUnplaced uint64 }
}

// parseWall parses a trace through the wall-mode state machine at 100 Hz,
// with or without the system calls and starts folded in, and returns its
// samples and how many calls and starts were folded in.
func parseWall(t *testing.T, data []byte, elide bool) (wallParse, int, int) {
	t.Helper()
	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	tb := newTraceBackend(em, rd, time.Now())
	gr := rd.(*gotrace.Reader)
	calls, starts := 0, 0
	if elide {
		gr.Elide = func(id uint64, user uint32, stack uint64, from, to gotrace.Time) bool {
			ok := tb.elideSyscall(id, user, stack, from, to)
			if ok {
				calls++
			}
			return ok
		}
		gr.Start = func(id uint64, user uint32, at gotrace.Time) bool {
			ok := tb.foldStart(id, user, at)
			if ok {
				starts++
			}
			return ok
		}
	} else {
		gr.Elide, gr.Start = nil, nil
	}
	if err := tb.consume(); err != nil {
		t.Fatal(err)
	}
	var p wallParse
	for _, s := range sink.all() {
		var b strings.Builder
		fmt.Fprintf(&b, "g%d %d status %d:", s.gid, s.ts, s.status)
		for _, f := range s.stack {
			fmt.Fprintf(&b, " %s", f.Func)
		}
		p.samples = append(p.samples, b.String())
	}
	slices.Sort(p.samples)
	p.stats.samples, p.stats.ticks, p.stats.cpuSamples = em.samples, em.ticks, em.cpuSamples
	p.stats.noCPU, p.stats.cpuUnplaced = em.noCPU, em.cpuUnplaced
	return p, calls, starts
}
