package sampler

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
)

// The goroutine leak profile (trace backend, Go 1.27 and later, or Go 1.26
// built with GOEXPERIMENT=goroutineleakprofile). Its garbage collection
// proves which blocked goroutines can never run again: each waits on
// something (a channel, a lock) that no goroutine that can run still
// reaches. With Config.LeakProfile the backend takes it every period and
// once more at Stop, before the trace ends, and labels the goroutines it
// names "leak=unreachable" (tachyon.LabelLeak) from the first event of the
// trace after the profile on; a goroutine created before the trace began
// takes its creation site from the profile's "created by" lines.
//
// Its cost: the garbage collection, and, if it found a leaked goroutine,
// a dump of every goroutine's stack (runtime.Stack(all): the ids of the
// leaked goroutines are in no other form), which stops the world for a
// time that grows with the goroutines and their depth
// (bench/MEASUREMENTS.md). The dump is refused, as the snapshot backend's
// are, when the estimated pause exceeds MaxSnapshotPause.

// LeakProfileAvailable reports whether this Go has the goroutine leak
// profile.
func LeakProfileAvailable() bool { return pprof.Lookup("goroutineleak") != nil }

// leakedG is a goroutine a leak profile named, with its creation site.
type leakedG struct {
	id   uint64
	site string
}

// leakMark is one leak profile's findings, taken at wall time at (ns).
type leakMark struct {
	at int64
	gs []leakedG
}

// leakFeed passes leak profiles from the watcher to the parser.
type leakFeed struct {
	has     atomic.Bool // pending holds a mark
	mu      sync.Mutex
	pending []leakMark
	quit    chan struct{}
	done    chan struct{}
	// The watcher's, read after done: profiles taken, refused, and the
	// first failure.
	taken, refused int
	err            error
	dumper
}

// startLeaks starts the watcher if Config.LeakProfile asks for it; it
// notes in the stats why not if the profile does not exist.
func (tb *traceBackend) startLeaks() {
	every := tb.em.cfg.LeakProfile
	if every <= 0 {
		return
	}
	if !LeakProfileAvailable() {
		tb.em.leakNote = "goroutine leak profile unavailable: it needs Go 1.27 or later (Go 1.26 with GOEXPERIMENT=goroutineleakprofile)"
		return
	}
	lf := &leakFeed{quit: make(chan struct{}), done: make(chan struct{})}
	tb.leaks = lf
	own.Go(func() {
		defer close(lf.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-lf.quit:
				return
			case <-t.C:
				lf.take()
			}
		}
	})
}

// stopLeaks stops the watcher and takes the last profile, then lets the
// parser see two ticks of trace after it, so that the file's last
// samples carry what it found: the Stop request's time (emitter.stopWall)
// moves past them.
func (tb *traceBackend) stopLeaks() {
	lf := tb.leaks
	if lf == nil {
		return
	}
	close(lf.quit)
	<-lf.done
	lf.take()
	time.Sleep(2 * time.Second / time.Duration(tb.em.cfg.Rate))
	// The Stop request moves past the last profile and its two ticks:
	// no tick after the request is sampled, and these must be.
	if tb.em.stopWall.Load() != 0 {
		tb.em.stopWall.Store(time.Now().UnixNano())
	}
	tb.em.leakTaken += lf.taken
	tb.em.leakRefused += lf.refused
	if lf.err != nil {
		tb.em.leakNote = lf.err.Error()
	}
}

// take takes one leak profile and passes what it found to the parser.
// The profile's garbage collection marks the goroutines it proves
// leaked, which a goroutine dump then names by id; with none leaked
// (Profile.Count), no dump is taken. The dump is runtime.Stack's, in a
// buffer sized from the previous one: runtime/pprof's own (debug=2)
// starts at 1 MB and stops the world again at each doubling.
func (lf *leakFeed) take() {
	p := pprof.Lookup("goroutineleak")
	if err := p.WriteTo(io.Discard, 1); err != nil {
		if lf.err == nil {
			lf.err = fmt.Errorf("goroutine leak profile: %w", err)
		}
		return
	}
	lf.taken++
	var gs []leakedG
	if p.Count() > 0 {
		n, now := runtime.NumGoroutine(), time.Now()
		if _, ok := lf.allow(n, now); !ok {
			lf.refused++
			return
		}
		dump, _, _ := lf.dump(n, now)
		gs = parseLeaked(dump, nil)
	}
	lf.mu.Lock()
	lf.pending = append(lf.pending, leakMark{at: time.Now().UnixNano(), gs: gs})
	lf.mu.Unlock()
	lf.has.Store(true)
}

// parseLeaked appends to out the goroutines a goroutine dump marks
// "(leaked)" in their header, with their creation sites.
func parseLeaked(b []byte, out []leakedG) []leakedG {
	var cur *leakedG
	var creator []byte
	for len(b) > 0 {
		var line []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		if id, rest, ok := goid.ParseHeader(line); ok {
			cur, creator = nil, nil
			// "goroutine 19 [chan send (leaked)]:"
			if st, ok := bytes.CutPrefix(rest, []byte(" [")); ok && bytes.Contains(st[:max(bytes.IndexByte(st, ']'), 0)], []byte("(leaked)")) {
				out = append(out, leakedG{id: id})
				cur = &out[len(out)-1]
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte("created by ")):
			creator = line[len("created by "):]
			if k := bytes.Index(creator, []byte(" in goroutine ")); k >= 0 {
				creator = creator[:k]
			}
		case creator != nil && len(line) > 0 && line[0] == '\t':
			loc := line[1:]
			if k := bytes.LastIndexByte(loc, ' '); k > 0 {
				loc = loc[:k]
			}
			if k := bytes.LastIndexByte(loc, ':'); k > 0 {
				if n, err := strconv.Atoi(string(loc[k+1:])); err == nil {
					cur.site = tachyon.CreationSite(string(creator), string(loc[:k]), n)
				}
			}
			creator = nil
		}
	}
	return out
}

// applyLeaks labels the goroutines of the leak profiles taken at or before
// trace time t.
func (tb *traceBackend) applyLeaks(t gotrace.Time) {
	lf := tb.leaks
	now := tb.wallNS(t)
	lf.mu.Lock()
	var due []leakMark
	n := 0
	for _, m := range lf.pending {
		if m.at <= now {
			due = append(due, m)
		} else {
			lf.pending[n] = m
			n++
		}
	}
	clear(lf.pending[n:])
	lf.pending = lf.pending[:n]
	lf.has.Store(n > 0)
	lf.mu.Unlock()
	for _, m := range due {
		for _, lg := range m.gs {
			g := tb.find(lg.id)
			if g == nil || tb.base(g).leaked || g.role == roleHidden || g.role == roleRuntime {
				continue
			}
			b := tb.base(g)
			b.leaked = true
			tb.em.leakMarked++
			if b.created == "" && !tb.em.cfg.NoCreationLabels {
				b.created = lg.site
			}
			tb.relabelTo(g, nil, b)
		}
	}
}
