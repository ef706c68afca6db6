package profiler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/segment"
)

// Defaults of captures (see Capture).
const (
	// DefaultCapturePeriod is the least time between two captures.
	DefaultCapturePeriod = time.Minute
	// DefaultCaptureBefore and DefaultCaptureAfter are how much of the
	// time before and after the call a capture holds.
	DefaultCaptureBefore = 30 * time.Second
	DefaultCaptureAfter  = 5 * time.Second
	// DefaultCaptureKeep is how many captures a capture directory keeps:
	// past it, writing one deletes the oldest.
	DefaultCaptureKeep = 20
	// CaptureDirName is the directory of the captures of a profile in
	// segments, inside the segments' directory (a directory apart, so
	// that the commands that read the segments' directory do not count
	// its samples twice).
	CaptureDirName = "captures"
)

// Errors of Capture.
var (
	// ErrCaptureLimited is returned by a Capture that comes less than the
	// capture period (WithCapturePeriod) after the last one taken, or
	// while one is being written: it is counted (CaptureStats.Limited),
	// not taken.
	ErrCaptureLimited = errors.New("profiler: a capture was taken less than a capture period ago: this one is counted, not taken")
	// ErrNoCapturePlace is returned by Capture when a capture has nowhere
	// to go.
	ErrNoCapturePlace = errors.New("profiler: a capture has nowhere to go: give a directory (WithCaptureDir, PROFILE_CAPTURE_DIR), write segments (WithSegment: captures go to their directory), or register an uploader (OnCapture, as upload/auto does)")
)

// CaptureStats count a profile's captures.
type CaptureStats struct {
	// Taken counts the captures started, Limited those refused by the
	// rate limit, Failed those that could not be written.
	Taken, Limited, Failed int
	// Last is the path of the last capture written into a directory.
	Last string
}

// captures is a profile's capture state.
type captures struct {
	next   atomic.Int64 // Unix ns: no capture is taken before
	mu     sync.Mutex   // guards what follows
	busy   bool         // a capture is being written
	ended  bool         // Stop has begun: no more captures
	stats  CaptureStats
	hooks  []func(path, reason string)
	wg     sync.WaitGroup
	stop   chan struct{} // closed by Stop: write at once
	stopMu sync.Once
}

// WithCaptureDir names the directory that captures (see Capture) are
// written to, created if missing. Without it, a profile in segments
// writes them to CaptureDirName in the segments' directory, and another
// profile writes them only to the functions of OnCapture (an uploader).
func WithCaptureDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("profiler: WithCaptureDir: empty directory")
		}
		c.captureDir = dir
		return nil
	}
}

// WithCapturePeriod sets the least time between two captures
// (DefaultCapturePeriod if not given): the Capture calls that come sooner
// are counted and refused, so that a storm of slow requests makes one
// capture per period.
func WithCapturePeriod(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("profiler: WithCapturePeriod(%v): want a positive period", d)
		}
		c.capturePeriod = d
		return nil
	}
}

// WithCaptureKeep sets how many captures the capture directory keeps
// (DefaultCaptureKeep if not given): once a capture is written, the oldest
// files past that many are deleted. Only files named as captures
// (capture-TIME-REASON-PID.tachyon, of any process) that begin with a
// Tachyon header are, whatever else the directory holds.
func WithCaptureKeep(files int) Option {
	return func(c *config) error {
		if files < 1 {
			return fmt.Errorf("profiler: WithCaptureKeep(%d): want at least one file", files)
		}
		c.captureKeep = files
		return nil
	}
}

// WithCaptureSpan sets how much of the time before and after a Capture
// call the capture holds (DefaultCaptureBefore, DefaultCaptureAfter). The
// window (WithRecent) must be longer than before and after together, plus
// the few seconds the samples come late, for a capture to hold all of it.
func WithCaptureSpan(before, after time.Duration) Option {
	return func(c *config) error {
		if before < 0 || after < 0 || before+after <= 0 {
			return fmt.Errorf("profiler: WithCaptureSpan(%v, %v): want durations not negative, not both zero", before, after)
		}
		c.captureBefore, c.captureAfter = before, after
		return nil
	}
}

// Capture writes the recent window around now to the profile's capture
// place, for code that knows a moment mattered (a request past its
// deadline, a queue backing up). It is Profile.Capture of the running
// profile, or ErrNoRecent when none keeps a window.
func Capture(reason string) error {
	p := current.Load()
	if p == nil {
		return ErrNoRecent
	}
	return p.Capture(reason)
}

// Capture writes the samples of the time around now, from
// WithCaptureSpan's before it to its after (30 s and 5 s by default), as
// one finalized Tachyon file, labelled with reason: into the capture
// directory (WithCaptureDir, or CaptureDirName in a profile's segments
// directory) as capture-TIME-REASON-PID.tachyon (TIME the call's, in UTC,
// to the millisecond, so that names sort; REASON made of letters, digits,
// '.', '_' and '-', at most 64 bytes; written as .part and renamed once
// complete), and to every OnCapture function (an uploader pushes it with
// the label capture=REASON). Without a directory nor an OnCapture
// function, it returns ErrNoCapturePlace.
//
// Capture never blocks: it returns at once, and the capture is written
// by a goroutine of the profiler's once the samples of its after are in
// (seconds after the call), or at Stop, which waits for it (the capture
// then ends at Stop). After Stop, Capture returns ErrNoRecent. At most one
// capture is taken per capture period (WithCapturePeriod, a minute by
// default): a call sooner, or while one is written, is counted
// (CaptureStats.Limited) and returns ErrCaptureLimited, at the cost of
// an atomic load. Errors in writing are logged and counted.
func (p *Profile) Capture(reason string) error {
	if p.rw == nil {
		return ErrNoRecent
	}
	c := &p.caps
	now := time.Now()
	if now.UnixNano() < c.next.Load() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.ended {
			return ErrNoRecent // stopped: not a capture refused by the rate limit
		}
		c.stats.Limited++
		return ErrCaptureLimited
	}
	dir := p.captureDir()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended:
		return ErrNoRecent
	case dir == "" && len(c.hooks) == 0:
		return ErrNoCapturePlace
	case c.busy || now.UnixNano() < c.next.Load():
		c.stats.Limited++
		return ErrCaptureLimited
	}
	c.busy = true
	c.next.Store(now.Add(p.capturePeriod()).UnixNano())
	c.stats.Taken++
	if c.stop == nil {
		c.stop = make(chan struct{})
	}
	stop := c.stop
	c.wg.Add(1)
	reason = captureReason(reason)
	own.Go(func() { p.capture(reason, dir, now, stop) })
	return nil
}

// OnCapture registers fn to be called with the path of every capture
// written and its reason (as the file name has it), from a goroutine of
// the profiler's, after the file is complete. A capture that goes to no
// directory is a temporary file, deleted once fn returns: fn must read it
// before it returns. Registering one makes Capture work without a
// directory. A panic in fn is logged.
func (p *Profile) OnCapture(fn func(path, reason string)) {
	if fn == nil {
		return
	}
	p.caps.mu.Lock()
	p.caps.hooks = append(p.caps.hooks, fn)
	p.caps.mu.Unlock()
}

// CaptureStats returns the counts of the profile's captures so far.
func (p *Profile) CaptureStats() CaptureStats {
	p.caps.mu.Lock()
	defer p.caps.mu.Unlock()
	return p.caps.stats
}

// captureDir returns the directory captures go to, "" if none.
func (p *Profile) captureDir() string {
	switch {
	case p.cfg.captureDir != "":
		return p.cfg.captureDir
	case p.cfg.segment > 0 && p.name != "":
		return filepath.Join(p.name, CaptureDirName)
	}
	return ""
}

func (p *Profile) capturePeriod() time.Duration {
	if p.cfg.capturePeriod > 0 {
		return p.cfg.capturePeriod
	}
	return DefaultCapturePeriod
}

// captureSpan returns WithCaptureSpan's before and after, or the
// defaults.
func (p *Profile) captureSpan() (before, after time.Duration) {
	if p.cfg.captureBefore+p.cfg.captureAfter > 0 {
		return p.cfg.captureBefore, p.cfg.captureAfter
	}
	return DefaultCaptureBefore, DefaultCaptureAfter
}

// capture writes one capture, of the time around at, once its end has
// passed or Stop has begun.
func (p *Profile) capture(reason, dir string, at time.Time, stop chan struct{}) {
	c := &p.caps
	defer c.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			p.logf("profiler: panic writing a capture: %v\n%s", r, debug.Stack())
			c.mu.Lock()
			c.stats.Failed++
			c.busy = false
			c.mu.Unlock()
		}
	}()
	before, after := p.captureSpan()
	from, to := at.Add(-before), at.Add(after)
	t := time.NewTimer(time.Until(to))
	select {
	case <-t.C:
	case <-stop:
		// The sampler and the window have stopped: nothing was sampled
		// after now, and a span past it would claim time the profile
		// did not see.
		if now := time.Now(); now.Before(to) {
			to = now
		}
	}
	t.Stop()
	path, sp, err := p.writeCapture(reason, dir, at, from, to)
	c.mu.Lock()
	if err != nil {
		c.stats.Failed++
	} else if dir != "" {
		c.stats.Last = path
	}
	hooks := slices.Clone(c.hooks)
	c.busy = false
	c.mu.Unlock()
	if err != nil {
		p.logf("profiler: capture %q: %v", reason, err)
		return
	}
	if !p.cfg.quiet {
		p.logf("profiler: capture %q at %s: %d samples of %d goroutines from %s to %s%s",
			reason, at.UTC().Format(time.RFC3339Nano), sp.Samples, sp.Goroutines,
			sp.From.UTC().Format(time.RFC3339Nano), sp.To.UTC().Format(time.RFC3339Nano), inDir(path, dir))
	}
	for _, fn := range hooks {
		p.callCaptureHook(fn, path, reason)
	}
	if dir == "" {
		os.Remove(path)
	}
}

// inDir is the capture log line's " in PATH", or "" for a temporary file.
func inDir(path, dir string) string {
	if dir == "" {
		return ""
	}
	return " in " + path
}

// callCaptureHook calls fn, logging a panic.
func (p *Profile) callCaptureHook(fn func(string, string), path, reason string) {
	defer p.callback()()
	defer func() {
		if r := recover(); r != nil {
			p.logf("profiler: panic in an OnCapture function for %s: %v\n%s", path, r, debug.Stack())
		}
	}()
	fn(path, reason)
}

// writeCapture writes the capture of [from, to) into dir (created if
// missing) under its final name, or into a temporary file if dir is "".
func (p *Profile) writeCapture(reason, dir string, at, from, to time.Time) (string, RecentSpan, error) {
	var f *os.File
	var err error
	var final string
	if dir == "" {
		f, err = os.CreateTemp("", "tachyon-capture-*"+segment.Ext)
	} else if err = os.MkdirAll(dir, 0o755); err == nil {
		f, final, err = createCapture(dir, at, reason)
	}
	if err != nil {
		return "", RecentSpan{}, err
	}
	sp, err := p.rw.WriteFile(context.Background(), f, from, to)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && final != "" {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", sp, err
	}
	if final == "" {
		return f.Name(), sp, nil
	}
	keep := p.cfg.captureKeep
	if keep == 0 {
		keep = DefaultCaptureKeep
	}
	if err := pruneCaptures(dir, keep); err != nil {
		p.logf("profiler: captures in %s: %v", dir, err)
	}
	return final, sp, nil
}

// pruneCaptures deletes the oldest captures in dir past keep: the files
// whose names are capture names (isCaptureName) and whose bytes begin as a
// Tachyon file's, oldest by the time in their names. It also deletes the
// open files (.part) of captures that dead processes left, each only if
// no live process holds it (internal/runlock) and its bytes may be a
// writer's (segment.IsTachyonPart).
func pruneCaptures(dir string, keep int) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if base, ok := strings.CutSuffix(e.Name(), segment.PartExt); ok {
			if isCaptureName(base) && segment.IsTachyonPart(path) {
				runlock.Remove(path)
			}
		} else if isCaptureName(e.Name()) && segment.IsTachyon(path) {
			names = append(names, e.Name())
		}
	}
	if len(names) <= keep {
		return nil
	}
	slices.Sort(names) // by time: the names start with it
	var errs []error
	for _, n := range names[:len(names)-keep] {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// isCaptureName tells whether name is one captureName (or createCapture)
// gives: capture-YYYYMMDDTHHMMSS.mmmZ-REASON-PID[-N].tachyon.
func isCaptureName(name string) bool {
	rest, ok := strings.CutPrefix(name, "capture-")
	if !ok || !strings.HasSuffix(rest, segment.Ext) || len(rest) < len(captureTimeLayout)+2 {
		return false
	}
	if _, err := time.Parse(captureTimeLayout, rest[:len(captureTimeLayout)]); err != nil {
		return false
	}
	return strings.HasPrefix(rest[len(captureTimeLayout):], "Z-")
}

// captureTimeLayout is the time in a capture's name, in UTC.
const captureTimeLayout = "20060102T150405.000"

// createCapture creates the open file of a capture in dir: NAME.part of
// a NAME no file has (captureName, then with -2, -3... before the
// extension).
func createCapture(dir string, at time.Time, reason string) (*os.File, string, error) {
	name := captureName(at, reason)
	base := strings.TrimSuffix(name, segment.Ext)
	for i := 1; ; i++ {
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", base, i, segment.Ext)
		}
		final := filepath.Join(dir, name)
		if _, err := os.Lstat(final); err == nil {
			continue
		}
		f, err := runlock.Create(final+segment.PartExt, 0o644) // held, so that no other run's prune takes it for a dead run's
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		return f, final, err
	}
}

// captureName returns the file name of a capture taken at at:
// capture-YYYYMMDDTHHMMSS.mmmZ-REASON-PID.tachyon.
func captureName(at time.Time, reason string) string {
	return fmt.Sprintf("capture-%sZ-%s-%d%s", at.UTC().Format(captureTimeLayout), reason, os.Getpid(), segment.Ext)
}

// maxReason bounds a capture's reason, in bytes.
const maxReason = 64

// captureReason returns reason as file names and labels have it: letters,
// digits, '.', '_' and '-', others replaced by '_', at most maxReason
// bytes; "capture" if empty.
func captureReason(reason string) string {
	b := []byte(reason)
	if len(b) > maxReason {
		b = b[:maxReason]
	}
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "capture"
	}
	return string(b)
}

// stopCaptures ends the captures: no new one is taken, and those waiting
// for their end are written now (the window has every sample) and waited
// for.
func (p *Profile) stopCaptures() {
	c := &p.caps
	c.mu.Lock()
	c.ended = true
	if c.stop == nil {
		c.stop = make(chan struct{})
	}
	c.mu.Unlock()
	c.stopMu.Do(func() { close(c.stop) })
	c.wg.Wait()
}
