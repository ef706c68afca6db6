package spx

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
)

// Layout chooses how goroutines map onto SPX's single-threaded timeline.
type Layout uint8

const (
	// PerGoroutine writes one report per goroutine with real timestamps:
	// a sample owns the time up to the goroutine's next sample, or one
	// interval followed by a NotSampled call when the next sample is more
	// than 2 intervals away; the last sample owns one interval.
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
	// gapFactor: a step between two samples longer than gapFactor
	// intervals is a gap.
	gapFactor = 2
	// maxStep caps every duration (a sample's or a gap's), so that absurd
	// timestamp jumps do not push wt past float64 precision.
	maxStep = uint64(time.Hour / time.Microsecond)
	// defaultInterval (µs) is used when the file's interval is 0 in the
	// Sequential layout.
	defaultInterval = 10000
)

// Options configures WriteDir.
type Options struct {
	Layout      Layout
	Top         int    // PerGoroutine: reports for this many busiest goroutines; 0 (the default) or negative: all, up to MaxReports
	Host        string // host_name and key; "" = os.Hostname
	PID         int    // the profiled process's pid, if known
	CommandLine string // the profiled program's arguments
	Dir         string // its working directory
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the conversion's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames). Past it the conversion fails
	// with a *limits.Error (limits.StackFrames).
	MaxStackFrames int
}

// Written describes one report written by WriteDir.
type Written struct {
	Key       string
	Goroutine uint64 // PerGoroutine: the goroutine; Sequential: 0
	Interp    uint32 // PerGoroutine: the goroutine's interpreter id (0 in Go)
	Samples   int
	Summary   Summary
}

// step returns the time (µs) a sample at ts owns and the gap after it,
// given the next sample's time (hasNext false for the last).
func step(ts, next uint64, hasNext bool, iv uint64) (own, gap uint64) {
	if !hasNext {
		return min(iv, maxStep), 0
	}
	d := uint64(0)
	if next > ts {
		d = next - ts
	}
	if iv == 0 || d/gapFactor <= iv {
		return min(d, maxStep), 0
	}
	return min(iv, maxStep), min(d-iv, maxStep)
}

// MaxReports is the most reports the per-goroutine layout writes: a report
// per goroutine of a file of a million goroutines is a million files. For
// more goroutines, unless Top chooses the busiest, WriteDir fails with a
// *limits.Error (limits.Reports).
const MaxReports = 10_000

// tooManyReports is the error for a per-goroutine conversion of n
// goroutines asked to write them all.
func tooManyReports(n int) error {
	return fmt.Errorf("spx: %w", &limits.Error{Limit: limits.Reports, Max: MaxReports, Value: int64(n)})
}

// manyThreads is the thread count above which the per-goroutine layout
// with Options.Top holds only the busiest goroutines' runs.
const manyThreads = 10_000

// onePassThreads is the thread count up to which the per-goroutine layout
// with Options.Top first tries to hold every goroutine's runs in one pass,
// giving up past maxOnePassRuns runs: a wall profile's parked goroutines
// are a run or two each. Past either, it reads the file twice: once to
// find the busiest, once for their runs.
const onePassThreads = 100_000

// maxOnePassRuns bounds the runs that pass holds (24 bytes each); a
// variable for the tests.
var maxOnePassRuns = 1 << 21

// WriteDir writes f as SPX reports into dir (created if needed) and returns
// what it wrote. A file without samples yields no report. Unlike the other
// exporters' Write(w, f, opts), it takes a directory: an SPX profile is a
// directory of reports, each a metadata file and a data file, that SPX's
// viewer lists, one per goroutine in the PerGoroutine layout.
func WriteDir(dir string, f *reader.File, opt Options) ([]Written, error) {
	if opt.Layout == PerGoroutine && (opt.Top <= 0 || opt.Top > MaxReports) && int(f.Header.ThreadCount) > MaxReports {
		return nil, tooManyReports(int(f.Header.ThreadCount))
	}
	p, err := loadFor(f, opt)
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

// loadFor loads what opt's layout needs of f: runs for Sequential; for
// PerGoroutine, every goroutine's samples, or with Top and many goroutines
// those of the busiest only.
func loadFor(f *reader.File, opt Options) (*profile, error) {
	untimed := opt.Layout == Sequential
	if untimed || opt.Top <= 0 || int(f.Header.ThreadCount) <= manyThreads {
		return load(f, opt.MaxStackFrames, nil, untimed, 0)
	}
	return busiest.Read(f, onePassThreads, opt.Top, busiest.ByOnCPU, func(keep map[busiest.Key]bool, _ int) (*profile, error) {
		if keep == nil {
			return load(f, opt.MaxStackFrames, nil, false, maxOnePassRuns)
		}
		return load(f, opt.MaxStackFrames, keep, false, 0)
	})
}

func usTime(us uint64) time.Time {
	return time.Unix(int64(us/1e6), int64(us%1e6)*1000)
}

// emitter feeds a report, mapping profile name ids to report indices.
type emitter struct {
	p     *profile
	r     *report
	local []uint32
	stack []uint32
	cur   int64                // the stack id open in r, -1 if none is known
	moves map[[2]uint32]uint32 // (from, to) stack ids -> frames shared from the root
}

func newEmitter(p *profile, r *report) *emitter {
	e := &emitter{p: p, r: r, local: make([]uint32, len(p.names)), cur: -1, moves: map[[2]uint32]uint32{}}
	for i := range e.local {
		e.local[i] = ^uint32(0)
	}
	return e
}

// move makes stack sid the report's current stack. The frames it shares
// with the one before are looked up for a move seen before, so that a
// file whose records are each 65,536 frames deep and differ in their last
// frame costs the frames that change, not the depth, a move.
func (e *emitter) move(sid uint32, wt, ct uint64) error {
	k := 0
	if e.cur >= 0 {
		k = e.shared(uint32(e.cur), sid)
	}
	e.stack = e.stack[:0]
	for _, n := range e.p.stacks.Stack(sid)[k:] {
		if e.local[n] == ^uint32(0) {
			e.local[n] = e.r.Func(e.p.names[n])
		}
		e.stack = append(e.stack, e.local[n])
	}
	e.cur = int64(sid)
	return e.r.move(k, e.stack, wt, ct)
}

// moveTo makes stack, of report indices, the current one.
func (e *emitter) moveTo(stack []uint32, wt, ct uint64) error {
	e.cur = -1
	return e.r.Move(stack, wt, ct)
}

// maxMoves bounds the moves between stacks an emitter remembers.
const maxMoves = 1 << 16

// shared returns how many frames, from the root, stacks from and to
// share.
func (e *emitter) shared(from, to uint32) int {
	mv := [2]uint32{from, to}
	if k, ok := e.moves[mv]; ok {
		return int(k)
	}
	a, b := e.p.stacks.Stack(from), e.p.stacks.Stack(to)
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	if len(e.moves) >= maxMoves {
		clear(e.moves)
	}
	e.moves[mv] = uint32(k)
	return k
}

func (p *profile) goroutine(dir string, opt Options, t *thread) (Written, error) {
	start := usTime(t.runs[0].ts)
	rand := strconv.FormatUint(t.id, 10)
	if t.interp != 0 {
		rand += "." + strconv.FormatUint(uint64(t.interp), 10)
	}
	key := reportKey(start, opt.Host, opt.PID, rand)
	custom := fmt.Sprintf("gotachyon goroutine %d: %d samples, real timestamps; a sample lasts until the next one, gaps over %d intervals show as %s",
		t.id, t.n, gapFactor, NotSampled)
	return p.write(dir, opt, key, start, t.id, t.interp, custom, int(t.n), func(e *emitter) error {
		return p.timeline(e, t)
	})
}

// clock is a report's cumulative wall and CPU time, in ns.
type clock struct{ wt, ct uint64 }

// add advances the clock by d ns, on a CPU or not.
func (c *clock) add(d uint64, onCPU bool) {
	c.wt += d
	if onCPU {
		c.ct += d
	}
}

// timeline writes t's samples with their real times: each owns the time
// to the next one, or one interval and a NotSampled gap. The samples
// inside a run that are not gaps own a step each, and are written as one
// move: only gaps cost work per sample, as they are events of the report.
func (p *profile) timeline(e *emitter, t *thread) error {
	tl := timeline{p: p, e: e, gapFn: ^uint32(0)}
	for i := range t.runs {
		r := &t.runs[i]
		ts, step64 := r.ts, uint64(r.step)
		inner := uint64(r.n) - 1 // samples followed by one of the same run
		if own, gap := step(ts, ts+step64, true, p.iv); inner > 0 && gap == 0 {
			if err := e.move(r.stack, tl.c.wt, tl.c.ct); err != nil {
				return err
			}
			tl.c.add(inner*own*1000, r.status.OnCPU())
			ts += inner * step64
		} else {
			for range inner {
				if err := tl.sample(r, ts, ts+step64, true); err != nil {
					return err
				}
				ts += step64
			}
		}
		next, hasNext := uint64(0), i+1 < len(t.runs)
		if hasNext {
			next = t.runs[i+1].ts
		}
		if err := tl.sample(r, ts, next, hasNext); err != nil {
			return err
		}
	}
	return e.moveTo(nil, tl.c.wt, tl.c.ct)
}

// timeline is the state of a per-goroutine report being written.
type timeline struct {
	p     *profile
	e     *emitter
	c     clock
	gapFn uint32 // function index of NotSampled, ^0 until used
}

// sample writes the sample of r at ts, followed by one at next (if
// hasNext): it owns the time to next, or one interval and a gap.
func (tl *timeline) sample(r *run, ts, next uint64, hasNext bool) error {
	if err := tl.e.move(r.stack, tl.c.wt, tl.c.ct); err != nil {
		return err
	}
	own, gap := step(ts, next, hasNext, tl.p.iv)
	tl.c.add(own*1000, r.status.OnCPU())
	if gap == 0 {
		return nil
	}
	if tl.gapFn == ^uint32(0) {
		tl.gapFn = tl.e.r.Func(NotSampled)
	}
	if err := tl.e.moveTo([]uint32{tl.gapFn}, tl.c.wt, tl.c.ct); err != nil {
		return err
	}
	tl.c.wt += gap * 1000
	return nil
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
		iv = defaultInterval
	}
	iv = min(iv, maxStep) * 1000
	n := 0
	for _, t := range ts {
		n += int(t.n)
	}
	start := usTime(p.start)
	key := reportKey(start, opt.Host, opt.PID, "0")
	custom := fmt.Sprintf("gotachyon: %d goroutines laid end to end (by id), %d samples of %d us each; the time axis is synthetic",
		len(ts), n, iv/1000)
	return p.write(dir, opt, key, start, 0, 0, custom, n, func(e *emitter) error {
		var c clock
		for _, t := range ts {
			for _, r := range t.runs { // a run of n samples lasts n intervals
				if err := e.move(r.stack, c.wt, c.ct); err != nil {
					return err
				}
				c.add(uint64(r.n)*iv, r.status.OnCPU())
			}
			if err := e.moveTo(nil, c.wt, c.ct); err != nil {
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
	r := newReport(gz, p.states)
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
	m := reportMeta{Key: key, Start: start, Host: opt.Host, PID: opt.PID, TID: tid, Dir: opt.Dir,
		CommandLine: opt.CommandLine, Custom: custom}
	err = writeMeta(js, m, sum)
	if cerr := js.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("spx: %w", cerr)
	}
	return w, err
}
