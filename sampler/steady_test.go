package sampler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// recordIdleTrace records d of execution trace with CPU samples while n
// goroutines are blocked and one labels itself every few milliseconds
// (labelTicker).
func recordIdleTrace(tb testing.TB, n int, d time.Duration) []byte {
	stop := make(chan struct{})
	defer close(stop)
	for i := range n {
		go blockChan2(stop, i%7)
	}
	go labelTicker(stop)
	time.Sleep(20 * time.Millisecond)
	return traceFor(tb, d)
}

// labelTicker uses labels as a service does, until stop: each round sets
// pprof labels (one of two sets), begins a task and a region in it,
// sleeps, ends them and clears its labels.
func labelTicker(stop chan struct{}) {
	ctx := context.Background()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		setLabels(ctx, "route", []string{"/a", "/b"}[i%2])
		tctx, task := trace.NewTask(ctx, "request")
		trace.WithRegion(tctx, "handle", func() { time.Sleep(80 * time.Millisecond) })
		task.End()
		setLabels(ctx)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSteadyStateAllocs checks that, once a program's goroutines and
// stacks have been seen, reading its trace, folding it and writing the
// samples allocates nothing: an idle program with 1,000 parked goroutines
// and one that changes its labels, task and region 10 times a second
// (seldom enough that its CPU samples, each a new stack, leave most
// generations steady),
// each generation from the fifth on. The sink keeps nothing (package
// writer's benchmarks, and the root package's TestIdleAllocatesNothing
// for the whole profiler, count a writer's allocations). A generation in
// which the test process starts a goroutine or a thread, shows a new
// stack (a timer, the test runner), numbers more stacks or strings than
// any generation before, has more goroutines busy at once than any before
// (a busy state is kept for reuse, so its table grows to a high water
// and stays) or, written through the pipe, is larger than the pipe's
// buffers is not the steady state and is not judged; if no generation is
// steady, the trace is recorded again, twice as long: on a loaded machine the labelled goroutine's CPU samples land
// on new stacks for more generations before every stack has been seen.
// The test runs alone in a child process: the goroutines other tests of
// the package leave behind run in the recording, and their CPU samples
// show new stacks generation after generation.
func TestSteadyStateAllocs(t *testing.T) {
	if !testutil.InChild(t, 5*time.Minute) {
		return
	}
	// Every allocation is recorded with its stack, so that the process's
	// others (the test runner, the runtime) are told apart from ours.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	// On a slow machine the first generations after the fifth still show
	// new stacks; a recording long enough to pass them seldom needs the
	// retry.
	d := 12 * time.Second
	if testutil.Race {
		// Slower code under the race detector: the labelled goroutine's
		// queue and CPU samples reach their high water later.
		d = 20 * time.Second
	}
	for try := 1; ; try, d = try+1, 2*d {
		judged := steadyAllocs(t, d)
		if judged > 0 || t.Failed() {
			return
		}
		if try == 3 {
			t.Fatal("no generation without a new goroutine or stack in 3 recordings")
		}
	}
}

// steadyAllocs records d of an idle trace, reads and folds it, from a
// stream and through the live trace's pipe, fails t for each steady
// generation that allocated and returns how many generations it judged,
// the fewer of the two reads. A generation's window runs from its Sync to
// the next one's, so it holds the reading of the next generation.
func steadyAllocs(t *testing.T, d time.Duration) (judged int) {
	data := recordIdleTrace(t, 1000, d)
	stream := steadyRead(t, bytes.NewReader(data))
	// The pipe's writer keeps one generation ahead of the parser, as the
	// runtime's, which writes at the trace's pace, does.
	p := handoff.New(pipeMaxBytes)
	go func() { p.CloseWithError(handoff.Replay(keepUp{p}, data)) }()
	return min(stream, steadyRead(t, p))
}

// steadyRead reads and folds data's trace from r, as steadyAllocs says.
func steadyRead(t *testing.T, r io.Reader) (judged int) {
	src, err := newSource(r)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSource(src)
	em := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
	tb := newTraceBackend(em, src, time.Now())
	type mark struct {
		allocs                     map[string]int64
		samples                    uint64
		stacks, gs, grown, counted int
		threads, strs, slots, bufs int
		busy, caps                 int
	}
	var at mark
	var why []string // the generations not steady
	gen := replay(t, src, func(gen int) {
		// Four generations in, every stack has been seen.
		if gen > 5 {
			now := ownAllocs(t)
			n, where := allocsSince(at.allocs, now)
			waiters := waitersSince(at.allocs, now)
			steady := waiters == 0 && stacks(tb) == at.stacks && tb.recs.live == at.gs && tb.grown == at.grown && len(tb.busyTab) == at.busy && em.goroutines == at.counted && tb.endedGen == 0 && threads(src) == at.threads && strs(src) == at.strs && slots(src) == at.slots && buffers(r) == at.bufs && caps(src) == at.caps
			if !steady || os.Getenv("STEADY_DEBUG") != "" {
				// Said if no generation is judged.
				why = append(why, fmt.Sprintf("gen %d: waiters %d stacks %d->%d gs %d->%d grown %d->%d busy %d->%d counted %d->%d ended %d threads %d->%d strings %d->%d slots %d->%d buffers %d->%d caps %d->%d allocs %d",
					gen-1, waiters, at.stacks, stacks(tb), at.gs, tb.recs.live, at.grown, tb.grown, at.busy, len(tb.busyTab), at.counted, em.goroutines, tb.endedGen,
					at.threads, threads(src), at.strs, strs(src), at.slots, slots(src), at.bufs, buffers(r), at.caps, caps(src), n))
			}
			switch {
			case !steady: // the runtime's cache of waiters grew, a goroutine or a stack came or went, a goroutine's queue grew past its longest, more goroutines were busy at once or a generation was larger than ever before
			case em.samples == at.samples:
				t.Fatalf("generation %d wrote no samples", gen-1)
			case n > 0:
				judged++
				t.Errorf("generation %d: %d allocations in the sampler or its trace reader, writing %d samples, want 0:%s",
					gen-1, n, em.samples-at.samples, where)
			default:
				judged++
			}
		}
		if gen >= 5 {
			// The pipe's count before the allocations: a buffer made
			// between the two makes the generation unsteady.
			bufs := buffers(r)
			at = mark{ownAllocs(t), em.samples, stacks(tb), tb.recs.live, tb.grown, em.goroutines, threads(src), strs(src), slots(src), bufs, len(tb.busyTab), caps(src)}
		}
	}, tb.handle)
	if gen < 7 {
		t.Fatalf("%d generations recorded, want >= 7", gen)
	}
	if len(tb.labels.labelled) == 0 {
		t.Fatal("no labelled stack written")
	}
	t.Logf("%d generations judged; %d labelled stacks, %d label sets", judged, len(tb.labels.labelled), len(tb.labels.sets))
	if judged == 0 || os.Getenv("STEADY_DEBUG") != "" {
		t.Logf("generations not steady (or all, with STEADY_DEBUG):\n%s", strings.Join(why, "\n"))
	}
	return judged
}

// threads counts the OS threads src has shown: the trace reader keeps a
// state for each, so a generation in which a new thread first writes is
// not the steady state.
func threads(src source) int {
	if r, ok := src.(*gotrace.Reader); ok {
		return r.Threads()
	}
	return 0
}

// strs counts the strings src has kept: a generation that shows a name
// the process had not shown before (in a CPU sample's stack, whose PCs
// may already be known) is not the steady state.
func strs(src source) int {
	if r, ok := src.(*gotrace.Reader); ok {
		return r.Strings()
	}
	return 0
}

// slots counts the slots of src's tables by id: a generation that numbers
// more stacks or strings than any before (the test runner's and the
// runtime's own, which come and go) grows them, and is not the steady
// state.
func slots(src source) int {
	if r, ok := src.(*gotrace.Reader); ok {
		return r.IDSlots()
	}
	return 0
}

// caps sums the capacities of src's buffers for a generation: a
// generation larger than any before (a loaded machine's trace has some)
// grows them, and is not the steady state.
func caps(src source) int {
	if r, ok := src.(*gotrace.Reader); ok {
		return r.BufferCaps()
	}
	return 0
}

// buffers counts the buffers r, when it is the live trace's pipe, has
// made for generations: the replay's writer, a generation ahead, meeting
// a generation larger than any before (a loaded machine's trace has
// some) is not the steady state.
func buffers(r io.Reader) int {
	if p, ok := r.(*handoff.Pipe); ok {
		return p.Buffers()
	}
	return 0
}

// stacks counts the stacks tb has met, with their variants under a wait
// reason or with labels, and the label sets.
func stacks(tb *traceBackend) int {
	n := len(tb.known) + len(tb.labels.labelled) + len(tb.labels.sets) + len(tb.labels.psets)
	for _, s := range tb.known {
		n += len(s.waits)
		if s.rooted != nil {
			n++
		}
		for _, w := range s.waits {
			if w.rooted != nil {
				n++
			}
		}
	}
	return n
}

// ownAllocs returns the number of objects allocated so far (as of a
// collection it runs) by the sampler's and its trace reader's code
// (allocations whose stack holds one of their methods), by allocating
// stack. It reads the runtime's records and names each stack once:
// encoding and parsing the whole profile, with every allocation recorded,
// cost the test more than the replay it judges. A record keeps the 32
// frames nearest the allocation, where the sampler's code that asked for
// it is.
func ownAllocs(t *testing.T) map[string]int64 {
	runtime.GC()
	n, ok := runtime.MemProfile(memRecords, true)
	for !ok {
		memRecords = make([]runtime.MemProfileRecord, n+n/4+64)
		n, ok = runtime.MemProfile(memRecords, true)
	}
	sites := make(map[string]int64)
	for _, r := range memRecords[:n] {
		name, known := siteNames[r.Stack0]
		if !known {
			name = siteName(r.Stack())
			siteNames[r.Stack0] = name
		}
		if name != "" {
			sites[name] += r.AllocObjects
		}
	}
	return sites
}

// memRecords holds ownAllocs's reading of the runtime's records, reused.
var memRecords []runtime.MemProfileRecord

// siteNames holds the name of each allocating stack ownAllocs has met: its
// frames, or "" if it holds no method of ours.
var siteNames = map[[32]uintptr]string{}

// siteName names an allocating stack by its frames below the runtime's
// allocator, or returns "" if none is a method of the sampler's, its test
// sink's included, of its trace reader's or of the pipe's (the test's own
// functions are plain functions).
func siteName(pcs []uintptr) string {
	var k strings.Builder
	ours, below := false, false
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		below = below || !strings.HasPrefix(f.Function, "runtime.")
		if below {
			fmt.Fprintf(&k, "\n\t%s:%d", f.Function, f.Line)
		}
		ours = ours || ourFunc(f.Function)
		if !more {
			break
		}
	}
	if !ours {
		return ""
	}
	return k.String()
}

// allocsSince returns the allocations in now that were not in before, and
// where they were made.
func allocsSince(before, now map[string]int64) (n int64, where string) {
	for k, v := range now {
		if d := v - before[k]; d > 0 {
			n += d
			where += fmt.Sprintf("\n%d at%s", d, k)
		}
	}
	return n, where
}

// waitersSince returns how many of the allocations since before were the
// runtime's record of a goroutine waiting on a sync.Cond (the pipe's):
// it keeps those it made, and makes one only when more goroutines wait at
// once than ever before, which a loaded machine brings about, as a
// generation larger than any before makes the pipe a buffer.
func waitersSince(before, now map[string]int64) (n int64) {
	for k, v := range now {
		if d := v - before[k]; d > 0 && strings.HasPrefix(k, "\n\tsync.runtime_notifyListWait:") {
			n += d
		}
	}
	return n
}

// ourFunc reports whether the function named is a method of the
// sampler's, of its trace reader's or of the pipe's.
func ourFunc(name string) bool {
	return strings.HasPrefix(name, "github.com/gotachyon/profiler/sampler.(") ||
		strings.HasPrefix(name, "github.com/gotachyon/profiler/sampler.stackTable.") ||
		strings.HasPrefix(name, "github.com/gotachyon/profiler/internal/gotrace.(") ||
		strings.HasPrefix(name, "github.com/gotachyon/profiler/internal/handoff.(")
}
