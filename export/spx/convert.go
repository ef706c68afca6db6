package spx

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Layout chooses how goroutines map onto SPX's single-threaded timeline.
type Layout uint8

const (
	// PerGoroutine writes one report per goroutine with real timestamps:
	// a sample owns the time up to the goroutine's next sample, or one
	// interval followed by a NotSampled call when the next sample is more
	// than GapFactor intervals away; the last sample owns one interval.
	PerGoroutine Layout = iota
	// Sequential writes one report with the goroutines (by id) laid end to
	// end, each sample lasting one interval: wt is sampled goroutine time
	// and the time axis is synthetic, but flat profile and flame graph
	// count every sample exactly once.
	Sequential
)

// String returns "per-goroutine" or "sequential".
func (l Layout) String() string {
	if l == Sequential {
		return "sequential"
	}
	return "per-goroutine"
}

// ParseLayout parses the names String returns.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "per-goroutine":
		return PerGoroutine, nil
	case "sequential":
		return Sequential, nil
	}
	return 0, fmt.Errorf("spx: unknown layout %q (want per-goroutine or sequential)", s)
}

// Timing rules of the conversion.
const (
	// NotSampled names the synthetic call covering a gap in a goroutine's
	// samples (PerGoroutine layout).
	NotSampled = "[not sampled]"
	// GapFactor: a step between two samples longer than GapFactor
	// intervals is a gap.
	GapFactor = 2
	// MaxStep caps every duration (a sample's or a gap's), so that absurd
	// timestamp jumps do not push wt past float64 precision.
	MaxStep = uint64(time.Hour / time.Microsecond)
	// DefaultInterval (µs) is used when the file's interval is 0 in the
	// Sequential layout.
	DefaultInterval = 10000
)

// Options configures Convert.
type Options struct {
	Layout      Layout
	Top         int    // PerGoroutine: reports for this many busiest goroutines; 0 (the default) or negative: all, up to MaxReports
	Host        string // host_name and key; "" = os.Hostname
	PID         int    // the profiled process's pid, if known
	CommandLine string // the profiled program's arguments
	Dir         string // its working directory
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the conversion's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames).
	MaxStackFrames int
}

// Written describes one report written by Convert.
type Written struct {
	Key       string
	Goroutine uint64 // PerGoroutine: the goroutine; Sequential: 0
	Interp    uint32 // PerGoroutine: the goroutine's interpreter id (0 in Go)
	Samples   int
	Summary   Summary
}

// A run is n samples of one thread with one stack and status at ts,
// ts+step, ...: a wall profile's REPEAT records, kept as one entry each, so
// that the conversion holds a few bytes per stack change, not per sample.
type run struct {
	ts     uint64
	step   uint32 // µs between the run's samples; 0 while n is 1
	n      uint32
	stack  uint32
	status tachyon.Status
}

type thread struct {
	id     uint64
	interp uint32
	n      uint32 // samples
	onCPU  uint32
	runs   []run
}

// add appends a sample to t, extending its last run when it continues it.
func (t *thread) add(ts uint64, stack uint32, status tachyon.Status) {
	t.n++
	if k := len(t.runs); k > 0 {
		r := &t.runs[k-1]
		last := r.ts + uint64(r.n-1)*uint64(r.step)
		if r.stack == stack && r.status == status && r.n < math.MaxUint32 && ts >= last {
			d := ts - last
			if r.n == 1 && d > 0 && d <= math.MaxUint32 {
				r.step, r.n = uint32(d), 2
				return
			}
			if r.n > 1 && d == uint64(r.step) {
				r.n++
				return
			}
		}
	}
	t.runs = append(t.runs, run{ts: ts, n: 1, stack: stack, status: status})
}

// each calls fn for every sample of t in order, with the timestamp of the
// next one (ok false for the last).
func (t *thread) each(fn func(ts uint64, stack uint32, status tachyon.Status, next uint64, ok bool) error) error {
	for i, r := range t.runs {
		for k := range uint64(r.n) {
			ts := r.ts + k*uint64(r.step)
			next, ok := ts+uint64(r.step), true
			if k == uint64(r.n)-1 {
				if ok = i+1 < len(t.runs); ok {
					next = t.runs[i+1].ts
				}
			}
			if err := fn(ts, r.stack, r.status, next, ok); err != nil {
				return err
			}
		}
	}
	return nil
}

// profile is a Tachyon file reduced to per-thread samples of interned
// name stacks (root first).
type profile struct {
	names   []string
	stacks  stacktab.Table // distinct stacks of name ids, root first
	threads []*thread
	states  bool // some sample is on CPU: write ct
	iv      uint64
	start   uint64
}

// loader holds what load needs while it reads a file's samples.
type loader struct {
	p         *profile
	f         *reader.File
	frameName []int32 // frame index -> name id, or -1 before first use
	nameIdx   map[string]int32
	threads   map[busiest.Key]*thread
	names     []uint32 // the current sample's stack of name ids
}

// load reads f; with keep not nil, only the samples of the threads in it.
func load(f *reader.File, maxFrames int, keep map[busiest.Key]bool) (*profile, error) {
	l := &loader{
		p:         &profile{iv: f.Header.Interval, start: f.Header.StartTime},
		f:         f,
		frameName: make([]int32, len(f.FrameRefs())),
		nameIdx:   map[string]int32{},
		threads:   map[busiest.Key]*thread{},
	}
	l.p.stacks.Frames.Limit = maxFrames
	for i := range l.frameName {
		l.frameName[i] = -1
	}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		k := busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}
		if keep != nil && !keep[k] {
			continue
		}
		sid, err := l.p.stacks.ID(l.nameStack(s.Stack))
		if err != nil {
			return nil, fmt.Errorf("spx: %w", err)
		}
		t := l.thread(k)
		t.add(s.Timestamp, sid, s.Status)
		if s.Status.OnCPU() {
			t.onCPU++
			l.p.states = true
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return l.p, nil
}

// nameStack returns the name ids of stack (frame indices, innermost
// first), root first; the slice is reused by the next call.
func (l *loader) nameStack(stack []uint32) []uint32 {
	l.names = l.names[:0]
	for j := len(stack) - 1; j >= 0; j-- {
		l.names = append(l.names, uint32(l.name(stack[j])))
	}
	return l.names
}

// name returns the name id of frame fi, interning its function's name.
func (l *loader) name(fi uint32) int32 {
	if n := l.frameName[fi]; n >= 0 {
		return n
	}
	name := FuncName(l.f.Frame(fi).Func)
	n, ok := l.nameIdx[name]
	if !ok {
		n = int32(len(l.p.names))
		l.nameIdx[name] = n
		l.p.names = append(l.p.names, name)
	}
	l.frameName[fi] = n
	return n
}

// thread returns the thread of k, adding it to the profile when new.
func (l *loader) thread(k busiest.Key) *thread {
	t := l.threads[k]
	if t == nil {
		t = &thread{id: k.ID, interp: k.Interp}
		l.threads[k] = t
		l.p.threads = append(l.p.threads, t)
	}
	return t
}

// step returns the time (µs) a sample at ts owns and the gap after it,
// given the next sample's time (hasNext false for the last).
func step(ts, next uint64, hasNext bool, iv uint64) (own, gap uint64) {
	if !hasNext {
		return min(iv, MaxStep), 0
	}
	d := uint64(0)
	if next > ts {
		d = next - ts
	}
	if iv == 0 || d/GapFactor <= iv {
		return min(d, MaxStep), 0
	}
	return min(iv, MaxStep), min(d-iv, MaxStep)
}

// MaxReports is the most reports the per-goroutine layout writes: a report
// per goroutine of a file of a million goroutines is a million files.
const MaxReports = 10_000

// tooManyReports is the error for a per-goroutine conversion of n
// goroutines asked to write them all.
func tooManyReports(n int) error {
	return fmt.Errorf("spx: %d goroutines: the per-goroutine layout writes at most %d reports (spx.MaxReports); choose the busiest with Top (--top N) or use the sequential layout", n, MaxReports)
}

// manyThreads is the thread count above which the per-goroutine layout
// with Options.Top finds the busiest goroutines in a first pass.
const manyThreads = 10_000

// WriteDir writes f as SPX reports into dir (created if needed) and returns
// what it wrote. A file without samples yields no report. Unlike the other
// exporters' Write(w, f, opts), it takes a directory: an SPX profile is a
// directory of reports, each a metadata file and a data file, that SPX's
// viewer lists, one per goroutine in the PerGoroutine layout.
func WriteDir(dir string, f *reader.File, opt Options) ([]Written, error) {
	if opt.Layout == PerGoroutine && (opt.Top <= 0 || opt.Top > MaxReports) && int(f.Header.ThreadCount) > MaxReports {
		return nil, tooManyReports(int(f.Header.ThreadCount))
	}
	var keep map[busiest.Key]bool
	if opt.Layout == PerGoroutine && opt.Top > 0 && int(f.Header.ThreadCount) > manyThreads {
		// Only the busiest are written: read the file twice rather than
		// hold every goroutine's runs.
		var err error
		if keep, _, err = busiest.Threads(f, opt.Top, busiest.ByOnCPU); err != nil {
			return nil, fmt.Errorf("spx: %w", err)
		}
	}
	p, err := load(f, opt.MaxStackFrames, keep)
	if err != nil {
		return nil, err
	}
	if opt.Host == "" {
		opt.Host, _ = os.Hostname()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("spx: %w", err)
	}
	if len(p.threads) == 0 {
		return nil, nil
	}
	if opt.Layout == Sequential {
		w, err := p.sequential(dir, opt)
		if err != nil {
			return nil, err
		}
		return []Written{w}, nil
	}
	if (opt.Top <= 0 || opt.Top > MaxReports) && len(p.threads) > MaxReports {
		return nil, tooManyReports(len(p.threads))
	}
	ts := slices.Clone(p.threads)
	slices.SortStableFunc(ts, func(a, b *thread) int {
		if c := cmp.Compare(b.onCPU, a.onCPU); c != 0 {
			return c
		}
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	if opt.Top > 0 && len(ts) > opt.Top {
		ts = ts[:opt.Top]
	}
	var out []Written
	for _, t := range ts {
		w, err := p.goroutine(dir, opt, t)
		if err != nil {
			return out, err
		}
		out = append(out, w)
	}
	return out, nil
}

func usTime(us uint64) time.Time {
	return time.Unix(int64(us/1e6), int64(us%1e6)*1000)
}

// emitter feeds a Report, mapping profile name ids to report indices.
type emitter struct {
	p     *profile
	r     *Report
	local []uint32
	stack []uint32
}

func newEmitter(p *profile, r *Report) *emitter {
	e := &emitter{p: p, r: r, local: make([]uint32, len(p.names))}
	for i := range e.local {
		e.local[i] = ^uint32(0)
	}
	return e
}

func (e *emitter) move(sid uint32, wt, ct uint64) error {
	e.stack = e.stack[:0]
	for _, n := range e.p.stacks.Stack(sid) {
		if e.local[n] == ^uint32(0) {
			e.local[n] = e.r.Func(e.p.names[n])
		}
		e.stack = append(e.stack, e.local[n])
	}
	return e.r.Move(e.stack, wt, ct)
}

func (p *profile) goroutine(dir string, opt Options, t *thread) (Written, error) {
	start := usTime(t.runs[0].ts)
	rand := strconv.FormatUint(t.id, 10)
	if t.interp != 0 {
		rand += "." + strconv.FormatUint(uint64(t.interp), 10)
	}
	key := Key(start, opt.Host, opt.PID, rand)
	custom := fmt.Sprintf("gotachyon goroutine %d: %d samples, real timestamps; a sample lasts until the next one, gaps over %d intervals show as %s",
		t.id, t.n, GapFactor, NotSampled)
	return p.write(dir, opt, key, start, t.id, t.interp, custom, int(t.n), func(e *emitter) error {
		var wt, ct uint64
		gapFn := ^uint32(0)
		err := t.each(func(ts uint64, stack uint32, status tachyon.Status, next uint64, hasNext bool) error {
			if err := e.move(stack, wt, ct); err != nil {
				return err
			}
			own, gap := step(ts, next, hasNext, p.iv)
			wt += own * 1000
			if status.OnCPU() {
				ct += own * 1000
			}
			if gap > 0 {
				if gapFn == ^uint32(0) {
					gapFn = e.r.Func(NotSampled)
				}
				if err := e.r.Move([]uint32{gapFn}, wt, ct); err != nil {
					return err
				}
				wt += gap * 1000
			}
			return nil
		})
		if err != nil {
			return err
		}
		return e.r.Move(nil, wt, ct)
	})
}

func (p *profile) sequential(dir string, opt Options) (Written, error) {
	ts := slices.Clone(p.threads)
	slices.SortFunc(ts, func(a, b *thread) int {
		if c := cmp.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.interp, b.interp)
	})
	iv := p.iv
	if iv == 0 {
		iv = DefaultInterval
	}
	iv = min(iv, MaxStep) * 1000
	n := 0
	for _, t := range ts {
		n += int(t.n)
	}
	start := usTime(p.start)
	key := Key(start, opt.Host, opt.PID, "0")
	custom := fmt.Sprintf("gotachyon: %d goroutines laid end to end (by id), %d samples of %d us each; the time axis is synthetic",
		len(ts), n, iv/1000)
	return p.write(dir, opt, key, start, 0, 0, custom, n, func(e *emitter) error {
		var wt, ct uint64
		for _, t := range ts {
			err := t.each(func(_ uint64, stack uint32, status tachyon.Status, _ uint64, _ bool) error {
				if err := e.move(stack, wt, ct); err != nil {
					return err
				}
				wt += iv
				if status.OnCPU() {
					ct += iv
				}
				return nil
			})
			if err != nil {
				return err
			}
			if err := e.r.Move(nil, wt, ct); err != nil {
				return err
			}
		}
		return nil
	})
}

func (p *profile) write(dir string, opt Options, key string, start time.Time, tid uint64, interp uint32, custom string, samples int, body func(*emitter) error) (Written, error) {
	w := Written{Key: key, Goroutine: tid, Interp: interp, Samples: samples}
	base := filepath.Join(dir, key)
	gz, err := os.Create(base + ".txt.gz")
	if err != nil {
		return w, fmt.Errorf("spx: %w", err)
	}
	r := NewReport(gz, p.states)
	err = body(newEmitter(p, r))
	sum, cerr := r.Close()
	if err == nil {
		err = cerr
	}
	if cerr := gz.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("spx: %w", cerr)
	}
	if err != nil {
		os.Remove(base + ".txt.gz")
		return w, fmt.Errorf("spx: report %s: %w", key, err)
	}
	w.Summary = sum
	js, err := os.Create(base + ".json")
	if err != nil {
		return w, fmt.Errorf("spx: %w", err)
	}
	m := Meta{Key: key, Start: start, Host: opt.Host, PID: opt.PID, TID: tid, Dir: opt.Dir,
		CommandLine: opt.CommandLine, Custom: custom}
	err = WriteMeta(js, m, sum)
	if cerr := js.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("spx: %w", cerr)
	}
	return w, err
}
