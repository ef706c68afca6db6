package profiler_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

// TestIdleAllocatesNothing profiles an idle program of 1,000 parked
// goroutines and one that labels itself 50 times a second (profiler.Do, a
// trace task and region: labelTicker) in wall mode, the trace backend reading and zstd writing, and
// checks that once every goroutine has been settled (each is every fourth
// generation), a steady window of three generations allocates nothing but
// the runtime's own trace: the process's allocation (runtime/metrics) is
// split by stack with every allocation recorded, and none may come from
// the profiler's goroutines; a window in which it allocated is followed
// by up to two more, as what it allocates once does not come again.
// Checkpoints every second put two in the
// window: a checkpoint reuses its buffers, and allocates only the few
// bytes of the mark's file it writes and renames. The test runs alone in
// a child process: the goroutines other tests of the package leave behind
// would run new code in the window, which the profiler rightly learns.
func TestIdleAllocatesNothing(t *testing.T) {
	if !testutil.InChild(t, 2*time.Minute) {
		return
	}
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	defer benchload.Park(1000)()
	stopTicker := make(chan struct{})
	tickerDone := make(chan struct{})
	defer func() { close(stopTicker); <-tickerDone }()
	go labelTicker(stopTicker, tickerDone)
	p := profiler.Start(profiler.WithPath(filepath.Join(t.TempDir(), "p.bin")), profiler.WithQuiet(true), profiler.WithCheckpoint(time.Second))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	// Snapshots every two seconds from one call site, so that what taking
	// one costs (a collection, which makes its generation larger; the
	// test's own new stacks) has been seen before the judged window, from
	// the fourth snapshot to the fifth: by then each goroutine has been
	// settled (every fourth generation) at least once.
	var raw [5][]byte
	var total [5]uint64
	for i := range raw {
		if i > 0 {
			time.Sleep(2 * time.Second)
		}
		raw[i], total[i] = allocSnapshot(t), testutil.HeapAllocBytes()
	}
	// A window of the steady state allocates nothing; what the
	// profiler allocates once (a table reaching a size it never had, in a
	// code path the window happens to take first) does not come again, so
	// up to two more windows are judged before failing: an allocation
	// per generation or tick shows in each. The same holds for the
	// checkpoints' bound (their files' names and metadata); their buffers
	// for the tables are high water, grown once the tables grow.
	var byWho map[string]int64
	var profilerStacks, rollStacks []string
	for try := 0; ; try++ {
		before, after := parseProfile(t, raw[3]), parseProfile(t, raw[4])
		byWho, profilerStacks, rollStacks = map[string]int64{}, nil, nil
		for stack, n := range allocDiff(before, after) {
			byWho[stack.owner] += n
			switch stack.owner {
			case "profiler":
				profilerStacks = append(profilerStacks, fmt.Sprintf("%d bytes: %s", n, stack.funcs))
			case "rollover":
				rollStacks = append(rollStacks, fmt.Sprintf("%d bytes: %s", n, stack.funcs))
			}
		}
		t.Logf("allocated in the window: %d bytes in all (runtime/metrics); by owner: %v", total[4]-total[3], byWho)
		if byWho["profiler"] == 0 && byWho["rollover"] <= maxRollover || try == 2 {
			break
		}
		t.Logf("the profiler allocated in this window, or the checkpoints more than their bound; another:\n%s\n%s", strings.Join(profilerStacks, "\n"), strings.Join(rollStacks, "\n"))
		time.Sleep(2 * time.Second)
		raw[3], total[3] = raw[4], total[4]
		raw[4], total[4] = allocSnapshot(t), testutil.HeapAllocBytes()
	}
	if n := byWho["profiler"]; n > 0 {
		t.Errorf("the profiler allocated %d bytes in each of three steady windows of two seconds, want 0; in the last:\n%s", n, strings.Join(profilerStacks, "\n"))
	}
	// Two checkpoints in the window, each a few hundred bytes of file
	// names and metadata; the writer and its buffers are reused.
	if n := byWho["rollover"]; n > maxRollover {
		t.Errorf("the checkpoints allocated %d bytes in each of three windows of two seconds, want at most 32 KiB; in the last:\n%s", n, strings.Join(rollStacks, "\n"))
	}
}

// maxRollover bounds what the checkpoints of a steady window of two
// seconds allocate.
const maxRollover = 32 << 10

// labelTicker labels its goroutine as a service's handler would, until
// stop: each round runs profiler.Do with one of two label sets around a
// trace task and region, asleep.
func labelTicker(stop, done chan struct{}) {
	defer close(done)
	sets := []pprof.LabelSet{pprof.Labels("route", "/a", "method", "GET"), pprof.Labels("route", "/b", "method", "POST")}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		profiler.Do(context.Background(), sets[i%2], func(ctx context.Context) {
			ctx, task := trace.NewTask(ctx, "request")
			trace.WithRegion(ctx, "handle", func() { time.Sleep(15 * time.Millisecond) })
			task.End()
		})
		time.Sleep(5 * time.Millisecond)
	}
}

// allocSnapshot returns the process's allocations so far, by stack, after
// a collection (the profile is published at the end of each cycle), as an
// encoded profile.
func allocSnapshot(t *testing.T) []byte {
	runtime.GC()
	var b bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&b, 0); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func parseProfile(t *testing.T, b []byte) *profile.Profile {
	prof, err := profile.ParseData(b)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

type allocStack struct{ owner, funcs string }

// allocDiff returns the bytes allocated by stack between two profiles.
func allocDiff(before, after *profile.Profile) map[allocStack]int64 {
	d := map[allocStack]int64{}
	for sign, p := range []*profile.Profile{before, after} {
		for _, s := range p.Sample {
			var fs []string
			for _, loc := range s.Location {
				for _, l := range loc.Line {
					fs = append(fs, l.Function.Name+":"+strconv.Itoa(int(l.Line)))
				}
			}
			k := allocStack{allocOwner(s), strings.Join(fs, " < ")}
			d[k] += int64(2*sign-1) * s.Value[1]
		}
	}
	for k, n := range d {
		if n == 0 {
			delete(d, k)
		}
	}
	return d
}

// waiters are the profiler's functions that wait in a select or on a
// condition and allocate nothing themselves: one at the leaf of an
// allocation's stack (the profile hides the runtime's frames above it) is
// the runtime refilling its cache of wait records, which each collection
// empties.
var waiters = []string{"sampler.(*frFeed).poll", "handoff.(*Pipe).NextGeneration", "handoff.(*Pipe).Wait", "handoff.(*Pipe).Header"}

// waitsAtLeaf says whether s's leaf is one of the waiters.
func waitsAtLeaf(s *profile.Sample) bool {
	if len(s.Location) == 0 || len(s.Location[0].Line) == 0 {
		return false
	}
	leaf := s.Location[0].Line[0].Function.Name
	for _, w := range waiters {
		if strings.HasSuffix(leaf, w) {
			return true
		}
	}
	return false
}

// allocOwner names who made an allocation: "runtime trace" (the runtime
// writing the execution trace: the floor), "runtime" (its cache of wait
// records, refilled after each collection), "new stack" (the profiler
// remembering a stack, frame, name or wait reason it had not seen: the
// test's own goroutines run new code in the
// window), "high water" (a generation larger than any before growing the
// trace reader's reused buffers, a goroutine's queue or the placement of
// CPU samples: the test's snapshots make generations of varying size;
// package sampler's TestSteadyStateAllocs judges them per generation; or
// the checkpoints' buffers for tables that new stacks grew), "rollover" (a checkpoint's rollover, on
// the sampler's goroutine and the segment writer's: the names and metadata of
// the files it creates and renames, which the os package allocates, and
// the few bytes of a file's header and footer), "profiler"
// (any other allocation by a
// goroutine of the profiler or its zstd encoder), "label API" (the
// program's own calls of profiler.Do and SetGoroutineLabels, which build
// a label event's message: per call, as runtime/pprof's labels allocate,
// never per sample), "new thread" (the trace reader's record of an OS
// thread it had not met: a loaded machine makes the runtime start more),
// "stale files" (the segment writer's one late look for files dead
// processes left, which os.ReadDir and the name's regexp make after a
// collection emptied their pools), or "other" (the test and its runner).
func allocOwner(s *profile.Sample) string {
	if waitsAtLeaf(s) {
		return "runtime"
	}
	owner := "other"
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			switch name := l.Function.Name; {
			case strings.HasSuffix(name, "sampler.stackTable.intern"), strings.HasSuffix(name, "writer.(*Writer).Frame"), strings.HasSuffix(name, "segment.(*Writer).Frame"),
				strings.HasSuffix(name, "sampler.(*traceBackend).frame"), strings.HasSuffix(name, "sampler.(*stack).waiting"),
				strings.HasSuffix(name, "sampler.(*emitter).reasonFrame"),
				strings.HasSuffix(name, "sampler.(*stack).underRuntime"), // a runtime goroutine's new stack
				strings.HasSuffix(name, "sampler.(*traceBackend).withLabels"), strings.HasSuffix(name, "sampler.(*traceBackend).labelSet"),
				strings.HasSuffix(name, "sampler.(*labeler).pset"), // a stack with labels, or a label set, not met before
				strings.HasSuffix(name, "gotrace.(*generation).stack"):
				return "new stack"
			case strings.HasSuffix(name, "segment.growZeroed"), strings.HasSuffix(name, "segment.(*Thread).Write") && owner == "other":
				return "high water" // a frame table or a stack larger than any before
			case strings.HasSuffix(name, "sampler.(*traceBackend).cut"), strings.HasSuffix(name, "sampler.(*traceBackend).cpuSample"),
				strings.HasSuffix(name, "sampler.(*traceBackend).place"), strings.HasSuffix(name, "sampler.(*traceBackend).placeActive"),
				strings.HasSuffix(name, "sampler.(*traceBackend).rebuild"), strings.HasSuffix(name, "sampler.appendRun"):
				// A goroutine's queue of ticks or CPU samples, or the
				// placement's scratch, longer than ever before: the
				// collections the snapshots make wake the runtime's GC
				// workers, busier in one generation than in another.
				return "high water"
			case strings.HasSuffix(name, "zstd.(*doubleFastEncoder).Encode"):
				// A block with more sequences than any before grows the
				// encoder's reused slice: each segment writer's encoder
				// (up to segment.MaxOpen) meets its largest block in turn.
				return "high water"
			case strings.HasSuffix(name, "checkpoint.roomy"):
				// The checkpoints' buffers for the tables, going round,
				// each growing once the tables outgrow it: a window in
				// which new stacks double small tables grows all of them
				// (package checkpoint's TestRoomyBuffersGoingRound bounds
				// how often).
				return "high water"
			case strings.HasSuffix(name, "writer.(*Writer).newThread"):
				return "new stack" // a goroutine the segment's writer has no record of
			case strings.HasSuffix(name, "writer.(*Writer).outFrame"):
				return "new stack" // a frame, and its names, in the file's records for the first time
			case strings.HasSuffix(name, "gotrace.(*Reader).thread"):
				return "new thread" // an OS thread the trace reader had not met
			case strings.HasSuffix(name, "segment.(*Writer).cleanStale"):
				// The one pass over the directory for files dead processes
				// left, runlock.MinAge after the start: a loaded machine's
				// slower snapshots move the window onto it.
				return "stale files"
			case strings.Contains(name, "internal/checkpoint.(*Writer)."), strings.HasSuffix(name, "writer.(*Writer).Checkpoint"):
				// A checkpoint: its mark's file, written and renamed.
				return "rollover"
			case strings.Contains(name, "segment.(*Writer).finishLoop"), strings.Contains(name, "segment.(*Writer).roll"),
				strings.Contains(name, "segment.(*Writer).finishOldest"), strings.Contains(name, "segment.Name"):
				// Closing and finalizing segments, opening the next.
				return "rollover"
			case strings.HasPrefix(name, "slices.") && owner == "other":
				owner = "slices" // growing a slice; whose, below
			case (name == "io.(*pipe).read" || strings.HasSuffix(name, "sampler.(*pacer).sleep")) && owner == "other":
				// The runtime refilling its cache of wait records (emptied
				// at each collection) for the reader blocking on the pipe,
				// or the pacer waiting on its timer.
				return "runtime"
			case strings.HasPrefix(name, "runtime.traceAdvance"), strings.HasPrefix(name, "runtime.(*traceStackTable)"),
				name == "runtime/trace.(*FlightRecorder).WriteTo": // the generation end a snapshot forces
				return "runtime trace"
			case strings.HasPrefix(name, "testing."), strings.HasPrefix(name, "runtime/pprof."):
				return "other"
			case name == "github.com/gotachyon/profiler.SetGoroutineLabels", name == "github.com/gotachyon/profiler.Do":
				return "label API"
			case strings.HasPrefix(name, "github.com/gotachyon/profiler/"), strings.HasPrefix(name, "github.com/klauspost/"):
				if owner == "slices" || owner == "other" && (strings.Contains(name, "gotrace.(*generation).") || strings.Contains(name, "gotrace.setID") || strings.Contains(name, "gotrace.(*gTable)")) {
					// Reused buffers and tables reaching a new size: the
					// trace reader's grow to the largest generation, its
					// list of a round's status reports to the longest
					// round, a goroutine's queue of runs to its longest.
					return "high water"
				}
				owner = "profiler"
			}
		}
	}
	if owner == "slices" {
		return "other"
	}
	return owner
}
