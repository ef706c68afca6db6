package segment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// Shape of the outage tests' stream: outThreads threads sampled every
// segStep, each with a new stack of outDepth frames every sample, so that
// the writer hands the file a buffer many times a second of samples.
const (
	outThreads = 100
	outDepth   = 24
	outTick    = segStep
	outRetry   = 10 * time.Millisecond
)

// outageRun writes the outage tests' stream through a Writer and
// checks what it wrote.
type outageRun struct {
	t      *testing.T
	s      *segment.Writer
	dir    string
	hs     []*segment.Thread
	stacks [][]uint32
	tick   uint64 // the next tick to write
	gone   uint64 // samples the test removed
	mu     sync.Mutex
	logs   []string
}

// newOutageRun starts a Writer of one-second segments whose file
// operations ask fault first.
func newOutageRun(t *testing.T, opts segment.Options, fault func(op, name string) error) *outageRun {
	r := &outageRun{t: t, dir: t.TempDir()}
	opts.Dir, opts.StartTime, opts.Period, opts.Interval = r.dir, segStart, time.Second, segStep
	opts.Logf = func(format string, args ...any) {
		r.mu.Lock()
		r.logs = append(r.logs, fmt.Sprintf(format, args...))
		r.mu.Unlock()
	}
	if fault != nil {
		segment.InjectFault(&opts, outRetry, fault)
	}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	for i := range 64 {
		var st []uint32
		for d := range outDepth {
			st = append(st, s.Frame(tachyon.Frame{File: "o.go", Func: fmt.Sprintf("fn%d_%d", i, d), Line: int32(d)}))
		}
		r.stacks = append(r.stacks, st)
	}
	for i := range outThreads {
		r.hs = append(r.hs, s.Thread(uint64(i+1), 0))
	}
	return r
}

// write writes the ticks up to (not including) upTo, in order: the
// watermark is the tick being written.
func (r *outageRun) write(upTo uint64) {
	for ; r.tick < upTo; r.tick++ {
		r.s.Watermark(segStart + r.tick*outTick)
		for i, h := range r.hs {
			st := r.stacks[(int(r.tick)+i)%len(r.stacks)]
			if err := h.Write(segStart+r.tick*outTick, 0, st); err != nil {
				r.t.Fatalf("tick %d: %v", r.tick, err)
			}
		}
	}
}

// waitFor waits until cond holds, for at most ten seconds.
func (r *outageRun) waitFor(what string, cond func() bool) {
	r.t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			r.t.Fatalf("waited 10 s for %s; stats %+v", what, r.s.Stats())
		}
	}
}

// logged reports whether a log line contains sub.
func (r *outageRun) logged(sub string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.logs, func(l string) bool { return strings.Contains(l, sub) })
}

// check reads every segment in the directory and checks that every tick
// outside [lo, hi) of every thread is there, once, that the missing ones
// are the ones the stats say were dropped, that the directory holds no
// open file, and returns the segments' nominal starts.
func (r *outageRun) check(lo, hi uint64) []time.Time {
	t := r.t
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(r.dir, "*"+segment.PartExt))
	if len(left) > 0 {
		t.Errorf("left %v", left)
	}
	paths, _ := filepath.Glob(filepath.Join(r.dir, "*"+segment.Ext))
	seen := make(map[[2]uint64]int)
	var starts []time.Time
	for _, p := range paths {
		sf, _ := segment.ParseName(filepath.Base(p))
		starts = append(starts, sf.Start)
		f, err := reader.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		it := f.Samples()
		for it.Next() {
			s := it.Sample()
			seen[[2]uint64{s.ThreadID, (s.Timestamp - segStart) / outTick}]++
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Close()
	}
	missing := uint64(0)
	for tick := range r.tick {
		for i := range r.hs {
			switch n := seen[[2]uint64{uint64(i + 1), tick}]; {
			case n > 1:
				t.Fatalf("thread %d tick %d written %d times", i+1, tick, n)
			case n == 1:
			case tick < lo || tick >= hi:
				t.Fatalf("thread %d tick %d lost, outside the outage [%d, %d); stats %+v", i+1, tick, lo, hi, r.s.Stats())
			default:
				missing++
			}
		}
	}
	if st := r.s.Stats(); st.Dropped+r.gone != missing || st.Held != 0 {
		t.Errorf("%d samples missing; stats %+v", missing, st)
	}
	return starts
}

// TestSegmentOutage checks that a directory that refuses writes for a
// while (a full disk, a read-only directory) loses at most the samples of
// that while, in order: the first error is logged at once, samples are
// held in memory up to the bound and then dropped and counted, and the
// segments resume when the directory takes writes again.
func TestSegmentOutage(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  string // the operations that fail
		err  error
	}{
		{"full", "create write rename", syscall.ENOSPC},
		{"readonly", "create rename remove", syscall.EACCES},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var down atomic.Bool
			fault := func(op, name string) error {
				if down.Load() && strings.Contains(tc.ops, op) {
					return tc.err
				}
				return nil
			}
			r := newOutageRun(t, segment.Options{HoldBytes: 256 << 10}, fault)
			const lo, hi, end = 250, 450, 800 // ticks: the outage is [2.5 s, 4.5 s)
			r.write(lo)
			down.Store(true)
			r.write(lo + 60) // past a boundary: a segment waits
			r.waitFor("the first error's log line", func() bool { return r.logged("cannot write") })
			r.write(hi)
			down.Store(false)
			r.waitFor("the recovery", func() bool { return r.logged("again after") })
			time.Sleep(2 * outRetry) // the open segment's held bytes, tried again
			r.write(end)
			if err := r.s.Close(); err != nil && r.s.Stats().Dropped == 0 {
				t.Errorf("Close: %v with nothing dropped", err)
			}
			starts := r.check(lo, hi)
			after := 0
			for _, s := range starts {
				if !s.Before(time.UnixMicro(int64(segStart + hi*outTick))) {
					after++
				}
			}
			if after < 3 {
				t.Errorf("%d segments after the outage, want at least 3: %v", after, starts)
			}
			if st := r.s.Stats(); st.Errors == 0 || st.Lost != 0 || st.Outage == 0 {
				t.Errorf("stats %+v", st)
			}
			r.noSpin()
		})
	}
}

// noSpin checks that the Writer tried the directory a few times a
// retry period during the outage, not in a loop: the finishing goroutine
// tries the oldest waiting segment, the writing one its open segment, and
// a rollover may try to create a file.
func (r *outageRun) noSpin() {
	st := r.s.Stats()
	if max := 3*int(st.Outage/outRetry) + st.Rollovers + 10; st.Errors > max {
		r.t.Errorf("%d failed writes in %v: more than %d, a retry period apart", st.Errors, st.Outage, max)
	}
}

// TestSegmentOutageHeld checks that an outage shorter than the memory
// bound loses nothing, and that Close then returns nil.
func TestSegmentOutageHeld(t *testing.T) {
	var down atomic.Bool
	r := newOutageRun(t, segment.Options{HoldBytes: 64 << 20}, func(op, name string) error {
		if down.Load() {
			return syscall.ENOSPC
		}
		return nil
	})
	r.write(150)
	down.Store(true)
	r.write(350)
	r.waitFor("the first error's log line", func() bool { return r.logged("cannot write") })
	down.Store(false)
	r.write(500)
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	r.check(0, 0)
	if st := r.s.Stats(); st.Dropped != 0 || st.Errors == 0 {
		t.Errorf("stats %+v", st)
	}
	r.noSpin()
}

// TestSegmentOutageAtClose checks that a directory that still refuses
// writes at Close costs the waiting segments, says so in Close's error,
// leaves no open file, and that Closed's last call (path "") still comes.
func TestSegmentOutageAtClose(t *testing.T) {
	var down atomic.Bool
	var calls []string
	var lasts int
	opts := segment.Options{Closed: func(path string, last bool) {
		calls = append(calls, path)
		if last {
			lasts++
		}
	}}
	r := newOutageRun(t, opts, func(op, name string) error {
		if down.Load() && (op == "create" || op == "rename") {
			return syscall.ENOSPC
		}
		return nil
	})
	r.write(150)
	r.waitFor("the first segment finalized", func() bool {
		done, _ := filepath.Glob(filepath.Join(r.dir, "*"+segment.Ext))
		return len(done) > 0
	})
	down.Store(true)
	r.write(250)
	err := r.s.Close()
	if err == nil || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("Close: %v", err)
	}
	if st := r.s.Stats(); st.Lost == 0 || st.Dropped == 0 {
		t.Errorf("stats %+v", st)
	}
	r.check(100, 250)
	if lasts != 1 || len(calls) == 0 || calls[len(calls)-1] != "" {
		t.Errorf("Closed calls %q, %d with last: want the last with path \"\", once", calls, lasts)
	}
}

// TestSegmentDirRemoved checks that segments resume once a removed
// directory is made again, with the open segment's samples kept, and
// that no spare is left behind.
func TestSegmentDirRemoved(t *testing.T) {
	r := newOutageRun(t, segment.Options{}, nil)
	r.write(150)
	r.waitFor("the first segment finalized", func() bool {
		done, _ := filepath.Glob(filepath.Join(r.dir, "*"+segment.Ext))
		return len(done) > 0
	})
	if err := os.RemoveAll(r.dir); err != nil {
		t.Fatal(err)
	}
	r.write(250) // a rollover into the removed directory
	r.waitFor("the first error's log line", func() bool { return r.logged("cannot write") })
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.write(500)
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	// The operator removed the first segment; everything after is there.
	r.gone = 100 * outThreads
	starts := r.check(0, 100)
	if len(starts) < 4 {
		t.Errorf("%d segments after the directory came back: %v", len(starts), starts)
	}
	r.noSpin()
}
