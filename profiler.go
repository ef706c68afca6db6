package profiler

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gotachyon/profiler/internal/checkpoint"
	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/quietpipe"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/recent"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/writer"
)

// ErrRunning is returned (by Profile.Err and Profile.Stop) when Start is
// called while another profile of this process is still running. It wraps
// sampler.ErrRunning.
var ErrRunning = fmt.Errorf("profiler: a profile is already running in this process (%w)", sampler.ErrRunning)

// active is the running Profile, if any: one per process, because the
// sampler's sources (the execution trace, the CPU profiling signal) are.
var (
	activeMu sync.Mutex
	active   *Profile
)

// Profile is one profiling session, returned by Start. Its methods are safe
// for concurrent use.
type Profile struct {
	cfg      config
	startErr error
	name     string // output file name, or "" for WithOutput

	s    *sampler.Sampler
	w    *writer.Writer     // WithOutput's writer, or
	seg  *segment.Writer    // the segments' (WithSegment), or
	ck   *checkpoint.Writer // the checkpointed stream's (a path)
	part string             // the checkpoints' directory (PartDir), or ""
	lock *runlock.Dir       // held on part while the profile runs
	done string             // the stream Stop finished, to rename to name
	temp bool               // name is a temporary file Start reserved
	out  io.WriteSeeker     // WithOutput's writer
	base int64              // out's offset where the Tachyon file starts

	stopOnce sync.Once
	stopErr  error
	cbMu     sync.Mutex
	cbIn     map[uint64]int // goroutines in one of the profile's callbacks (callback)
	statsMu  sync.Mutex
	stats    sampler.Stats

	hooksMu sync.Mutex
	hooks   []func(path string, last bool)

	rw   *recent.Window // the recent window (WithRecent), or nil
	caps captures
	sig  chan os.Signal // WithRecentSignal's, while it is listened for
}

// Start starts profiling the whole process with the given options and
// returns the running Profile. It never returns nil: if profiling could not
// start, the returned Profile's Err says why (the problem is also logged) and
// its Stop returns the same error, so that
//
//	defer profiler.Start(profiler.WithPath("cpu.bin")).Stop()
//
// is a complete, safe one-liner. Only one Profile runs at a time in a
// process: a second Start before the first one's Stop fails with ErrRunning
// and leaves the running profile and its output alone.
func Start(opts ...Option) (p *Profile) {
	p = &Profile{cfg: defaultConfig()}
	defer func() {
		if r := recover(); r != nil {
			p.abort(fmt.Errorf("profiler: panic in Start: %v\n%s", r, debug.Stack()))
		}
	}()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&p.cfg); err != nil && p.startErr == nil {
			p.startErr = err // keep applying options: WithLogger may follow
		}
	}
	if p.startErr != nil {
		p.logf("%v", p.startErr)
		return p
	}
	activeMu.Lock()
	if active != nil {
		activeMu.Unlock()
		p.startErr = ErrRunning
		p.logf("%v", ErrRunning)
		return p
	}
	active = p
	activeMu.Unlock()

	if err := p.open(); err != nil {
		p.abort(err)
		return p
	}
	t0 := time.Now()
	sink, err := p.newSink(t0)
	if err == nil {
		sink, err = p.withRecent(sink, t0)
	}
	if err != nil {
		p.abort(err)
		return p
	}
	s, err := sampler.Start(sampler.Config{
		Mode:               p.cfg.mode,
		Rate:               p.cfg.rate,
		Backend:            p.cfg.backend,
		NoWaitReasonFrames: !p.cfg.waitFrames,
		NoCPUSamples:       !p.cfg.wallCPU,
		AwaitCPUProfile:    p.cfg.awaitCPU,
		NoCreationLabels:   p.cfg.noCreation,
		LeakProfile:        p.cfg.leakEvery,
		Observer:           sampler.Tee(p.cfg.observers...),
		// What the sampler must say at once (the app's CPU profile was
		// shared or taken back) is said even when quiet.
		Log: func(m string) { p.logf("profiler: %s", m) },
	}, sink)
	if err != nil {
		p.abort(fmt.Errorf("profiler: %w", err))
		return p
	}
	p.s = s
	current.Store(p)
	p.startSignal()
	p.warnAsyncPreemptOff()
	if !p.cfg.quiet {
		p.logf("profiler: %s profiling at %d Hz into %s (backend %s)%s", p.cfg.mode, p.cfg.rate, p.outName(), s.Backend(), p.crashNote())
	}
	return p
}

// newSink starts the Tachyon file, or the first segment or checkpoint,
// at start.
func (p *Profile) newSink(start time.Time) (sampler.Sink, error) {
	if p.cfg.noFile {
		return nil, nil // the recent window alone
	}
	if p.part != "" {
		ck, err := p.newCheckpoints(start)
		if err != nil {
			return nil, err
		}
		p.ck = ck
		return checkpointSink(ck), nil
	}
	if p.cfg.segment > 0 {
		seg, err := p.newSegments(start)
		if err != nil {
			return nil, err
		}
		p.seg = seg
		return segmentSink{seg}, nil
	}
	w, err := writer.New(p.out, writer.Options{
		StartTime:   uint64(start.UnixMicro()),
		Interval:    uint64(1e6 / p.cfg.rate),
		Compression: p.cfg.compression,
	})
	if err != nil {
		return nil, fmt.Errorf("profiler: starting %s: %w", p.outName(), err)
	}
	p.w = w
	return writerSink(w), nil
}

// open creates the output, or checks the caller's.
func (p *Profile) open() error {
	switch {
	case p.cfg.noFile:
		return p.checkNoFile()
	case p.cfg.segment > 0:
		return p.openDir()
	case p.cfg.out != nil:
		p.out = p.cfg.out
		off, err := p.out.Seek(0, io.SeekCurrent)
		if err != nil {
			return fmt.Errorf("profiler: output: %w", err)
		}
		p.base = off
		if _, ok := p.out.(io.ReaderAt); !ok && len(p.cfg.exports) > 0 {
			return errExportsNeedReaderAt
		}
		return nil
	case p.cfg.path != "":
		if err := exportsBeside(p.cfg.path, p.cfg.exports); err != nil {
			return err
		}
		return p.openPart(p.cfg.path)
	default:
		f, err := os.CreateTemp("", "tachyon-*.bin")
		if err != nil {
			return fmt.Errorf("profiler: %w", err)
		}
		f.Close()
		p.temp = true
		if err := p.openPart(f.Name()); err != nil {
			os.Remove(f.Name())
			return err
		}
		return nil
	}
}

// exportsBeside refuses an export to the profile's own path, which would
// replace the finished profile with the export.
func exportsBeside(path string, exports []export) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil // openPart says it
	}
	for _, e := range exports {
		if ea, err := filepath.Abs(e.path); err == nil && ea == abs {
			return fmt.Errorf("profiler: WithExport(%q) names the profile's own path: the export would replace the profile; give it another path", e.path)
		}
	}
	return nil
}

// abort records a Start failure, undoes what Start did, and logs it.
func (p *Profile) abort(err error) {
	p.startErr = err
	if p.w != nil {
		p.w.Close() // leave a valid, empty profile in a caller's writer
	}
	if p.seg != nil {
		p.seg.Close() // an empty, valid segment
	}
	if p.ck != nil {
		p.ck.Abort()
	}
	if p.part != "" {
		p.discardPart() // only files this Start created
	}
	if p.temp {
		os.Remove(p.name)
	}
	if p.rw != nil {
		p.rw.Release()
	}
	activeMu.Lock()
	if active == p {
		active = nil
	}
	activeMu.Unlock()
	p.logf("%v", err)
}

// Err returns the error that kept Start from profiling, or nil if profiling
// started.
func (p *Profile) Err() error { return p.startErr }

// Path returns the absolute path of the file being written (which exists
// once Stop has returned), the directory of the segments with
// WithSegment, or "" when the profile goes to an io.WriteSeeker given by
// WithOutput.
func (p *Profile) Path() string { return p.name }

// Backend returns the sampler backend that runs (Trace or Snapshot), or
// Auto if profiling did not start. The Tachyon
// header has no field for it, so the file does not record it: this method
// and the log line written at Start and Stop are the record.
func (p *Profile) Backend() Backend {
	if p.s == nil {
		return sampler.Auto
	}
	return p.s.Backend()
}

// Stats returns the sampler's statistics once Stop has returned, and the
// zero Stats before.
func (p *Profile) Stats() sampler.Stats {
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	return p.stats
}

// Stop stops profiling, finalizes the Tachyon file (closing it if Start
// created it; a WithOutput writer is left open) and runs the exports. It
// returns the first problems met, joined, and logs them once. Stop is
// idempotent and safe to call from any goroutine: every call waits for the
// first one to finish and returns the same error. For a Profile that failed to
// start, Stop returns Err. Called from a function the profile calls and
// Stop waits for (a WithExport function, an OnSegment or OnCapture
// function, an observer's Close), Stop would wait for itself: it returns
// an error at once instead, and the profile goes on.
func (p *Profile) Stop() error {
	if p.inCallback() {
		p.logf("%v", errStopInCallback)
		return errStopInCallback
	}
	p.stopOnce.Do(func() {
		if p.startErr != nil {
			p.stopErr = p.startErr
			return
		}
		if p.s == nil { // a Profile that Start did not return
			p.stopErr = errNotStarted
			p.logf("%v", p.stopErr)
			return
		}
		p.stopErr = p.stop()
		if p.stopErr != nil {
			p.logf("%v", p.stopErr)
		} else if !p.cfg.quiet {
			fallback := ""
			st := p.Stats()
			if st.Fallback != "" {
				fallback = " (fell back: " + st.Fallback + ")"
			}
			if st.Dumps > 0 && st.Dumps < st.Ticks {
				fallback += fmt.Sprintf(" (%d snapshot dumps stood for %d ticks)", st.Dumps, st.Ticks)
			}
			if st.Refused != "" {
				fallback += " (" + st.Refused + ")"
			}
			if st.CPUProfile != "" {
				fallback += " (CPU profile: " + st.CPUProfile + ")"
			}
			if st.Unparsed > 0 || st.Unmet > 0 {
				fallback += fmt.Sprintf(" (%d samples before the Stop request not written", st.Unparsed)
				if st.Unmet > 0 {
					fallback += fmt.Sprintf(", nor those of about %d goroutines the parse had not met", st.Unmet)
				}
				fallback += fmt.Sprintf(": the trace's end was not parsed within %v)", sampler.MaxStopParse)
			}
			fallback += unplacedSummary(st)
			fallback += leakSummary(st)
			for _, sw := range st.Switches {
				fallback += fmt.Sprintf(" (switched to %s at %v: %s)", sw.To, sw.At.Round(time.Millisecond), sw.Why)
			}
			p.logf("profiler: wrote %s%s%s: %d samples of %d goroutines, backend %s%s, %.1f Hz achieved",
				p.outName(), p.segmentSummary(), p.recentSummary(), st.Samples, st.Goroutines, st.Backend, fallback, st.AchievedHz)
		}
	})
	return p.stopErr
}

// errNotStarted is Stop's answer for a Profile that Start did not return
// (a zero Profile).
var errNotStarted = errors.New("profiler: Stop of a Profile that Start did not return: nothing to stop")

// errStopInCallback is Stop's answer when it is called from a function
// the profile calls and Stop waits for: it would wait for itself.
var errStopInCallback = errors.New("profiler: Stop called from a function the profile calls (a WithExport function, an OnSegment or OnCapture function, an observer's Close), which Stop waits for: it would wait for itself; call Stop from another goroutine (go p.Stop())")

// callback marks the calling goroutine as running one of the profile's
// callbacks until leave is called, so that a Stop called from it returns
// errStopInCallback instead of waiting for itself.
func (p *Profile) callback() (leave func()) {
	id := goid.Current()
	if id == 0 {
		return func() {}
	}
	p.cbMu.Lock()
	if p.cbIn == nil {
		p.cbIn = make(map[uint64]int)
	}
	p.cbIn[id]++
	p.cbMu.Unlock()
	return func() {
		p.cbMu.Lock()
		if p.cbIn[id]--; p.cbIn[id] <= 0 {
			delete(p.cbIn, id)
		}
		p.cbMu.Unlock()
	}
}

// inCallback reports whether the calling goroutine runs one of the
// profile's callbacks.
func (p *Profile) inCallback() bool {
	p.cbMu.Lock()
	n := len(p.cbIn)
	p.cbMu.Unlock()
	if n == 0 {
		return false
	}
	id := goid.Current()
	p.cbMu.Lock()
	defer p.cbMu.Unlock()
	return id != 0 && p.cbIn[id] > 0
}

func (p *Profile) stop() (err error) {
	var errs []error
	defer func() {
		if r := recover(); r != nil {
			errs = append(errs, fmt.Errorf("profiler: panic in Stop: %v\n%s", r, debug.Stack()))
		}
		activeMu.Lock()
		if active == p {
			active = nil
		}
		activeMu.Unlock()
		err = errors.Join(errs...)
	}()
	current.CompareAndSwap(p, nil)
	p.finishing()
	st, serr := p.s.Stop()
	p.stopRecent()
	p.statsMu.Lock()
	p.stats = st
	p.statsMu.Unlock()
	for _, o := range p.cfg.observers {
		if c, ok := o.(io.Closer); ok {
			leave := p.callback()
			err := callSafely(c.Close)
			leave()
			if err != nil {
				errs = append(errs, fmt.Errorf("profiler: closing an observer: %w", err))
			}
		}
	}
	werr := p.closeSink()
	// The writer keeps its first error: a sampler that stopped on it
	// reports the same error, which is said once.
	if serr != nil && (werr == nil || !errors.Is(serr, werr)) {
		errs = append(errs, fmt.Errorf("profiler: %w", serr))
	}
	if werr != nil {
		errs = append(errs, fmt.Errorf("profiler: writing %s: %w", p.outName(), werr))
	}
	if werr == nil && p.part != "" {
		if err := p.finishPart(); err != nil {
			werr = err
			errs = append(errs, err)
		}
	}
	if werr == nil && len(p.cfg.exports) > 0 {
		errs = append(errs, p.runExports())
	}
	switch {
	case werr == nil && p.part != "":
		p.runHooks(p.name, true)
	case p.part != "":
		p.runHooks("", true) // no file: the end all the same
	}
	return errors.Join(errs...)
}

func (p *Profile) outName() string {
	switch {
	case p.name != "":
		return p.name
	case p.cfg.noFile:
		return "memory only (WithNoFile)"
	}
	return "the output writer"
}

// logf logs one line; errors already start with "profiler: ".
func (p *Profile) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.cfg.logger != nil {
		p.cfg.logger.Print(msg)
		return
	}
	quietpipe.Print(msg)
}

// unplacedSummary says, for the log line at Stop, how much of a wall
// profile's CPU time is missing from its on-CPU samples (see
// sampler.Stats.CPUUnplaced), once it is 1 % of the CPU samples or more.
func unplacedSummary(st sampler.Stats) string {
	if st.Mode != sampler.Wall || st.CPUUnplaced == 0 || st.CPUUnplaced*100 < st.CPUSamples {
		return ""
	}
	return fmt.Sprintf(" (%d of %d CPU samples not placed, %.0f %%: of goroutines that ended with no running tick of their own or of their creation site's to take them;"+
		" their CPU time is missing from the on-CPU time; CPU mode counts it all)",
		st.CPUUnplaced, st.CPUSamples, 100*float64(st.CPUUnplaced)/float64(st.CPUSamples))
}
