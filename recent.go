package profiler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/recent"
	"github.com/gotachyon/profiler/sampler"
)

// Defaults of the recent window (WithRecent).
const (
	// DefaultRecent is the recent window's length of a profile written
	// in segments (WithSegment), which keeps one unless WithRecent(0, 0)
	// says otherwise; other profiles keep none unless asked.
	DefaultRecent = recent.DefaultDuration
	// DefaultRecentBytes is the window's bound on its samples when
	// WithRecent gives none: it holds a minute of 10,000 goroutines (see
	// bench/MEASUREMENTS.md). The window's own state (a writer, and a few
	// hundred bytes a goroutine) comes beside it.
	DefaultRecentBytes = recent.DefaultMaxBytes
	// MinRecent is the shortest window WithRecent accepts.
	MinRecent = time.Second
)

// RecentSpan is what a file written by Recent covers: every sample of
// the profile at or after From and before To (recent.Span).
type RecentSpan = recent.Span

// ErrNoRecent is returned by Recent and Capture when no running profile
// keeps a recent window.
var ErrNoRecent = errors.New("profiler: no recent window is kept: start the profile WithRecent (PROFILE_RECENT=60s), or WithSegment, which keeps one by default")

// errNoFile refuses WithNoFile with what needs a file.
var errNoFile = errors.New("profiler: WithNoFile keeps the profile in memory only: it needs WithRecent, and cannot be combined with WithPath, WithOutput, WithSegment or WithExport")

// current is the running profile once Start has started its sampler,
// read without a lock by Recent and Capture.
var current atomic.Pointer[Profile]

// WithRecent keeps the last d of the profile's samples in memory, at
// most maxBytes of it (DefaultRecentBytes if 0), so that Recent, Capture
// and httpprof's ?recent= can write them out while profiling goes on. The
// window holds the samples in the writer's own encoding (package recent):
// keeping it costs a second encoding of each sample, and its memory,
// counted against maxBytes, is its chunks (zstd), a writer and a few
// hundred bytes per live goroutine; past maxBytes it keeps less than d
// (a maxBytes the writer and the goroutines alone take keeps nothing, and
// is logged). With maxBytes 0, DefaultRecentBytes bounds the chunks
// alone, and the writer and the goroutines' state come beside them.
// It works beside a file, segments or checkpoints, and alone with
// WithNoFile. A profile written in segments (WithSegment) keeps
// DefaultRecent and DefaultRecentBytes unless told otherwise;
// WithRecent(0, 0) keeps none. d must be 0 or at least MinRecent.
func WithRecent(d time.Duration, maxBytes int64) Option {
	return func(c *config) error {
		if d != 0 && d < MinRecent || d < 0 || maxBytes < 0 {
			return fmt.Errorf("profiler: WithRecent(%v, %d): want 0 (off) or at least %v, and a bound of bytes not negative", d, maxBytes, MinRecent)
		}
		c.recent, c.recentBytes, c.recentSet = d, maxBytes, true
		return nil
	}
}

// WithNoFile writes no profile file: the samples go only to the recent
// window, which WithRecent must ask for, to be taken with Recent, Capture
// or httpprof. It cannot be combined with WithPath, WithOutput,
// WithSegment or WithExport. Profile.Path is then "", and OnSegment's
// functions are never called.
func WithNoFile() Option {
	return func(c *config) error {
		c.noFile = true
		return nil
	}
}

// recentWanted returns the window's length, 0 for none: WithRecent's, or
// DefaultRecent for a profile in segments.
func (c *config) recentWanted() time.Duration {
	if !c.recentSet && c.segment > 0 {
		c.recent, c.recentBytes = DefaultRecent, 0
	}
	return c.recent
}

// checkNoFile checks the options of a profile kept only in memory.
func (p *Profile) checkNoFile() error {
	c := &p.cfg
	if c.recentWanted() == 0 || c.path != "" || c.out != nil || c.segment > 0 || len(c.exports) > 0 {
		return errNoFile
	}
	return nil
}

// withRecent returns the sink that keeps the recent window beside
// primary (nil for WithNoFile), if one is wanted.
func (p *Profile) withRecent(primary sampler.Sink, start time.Time) (sampler.Sink, error) {
	d := p.cfg.recentWanted()
	if d == 0 {
		return primary, nil
	}
	w, err := recent.New(recent.Options{
		Duration:  d,
		MaxBytes:  p.cfg.recentBytes,
		StartTime: uint64(start.UnixMicro()),
		Interval:  uint64(1e6 / p.cfg.rate),
		Logf:      p.logf,
	})
	if err != nil {
		return nil, fmt.Errorf("profiler: %w", err)
	}
	p.rw = w
	if primary == nil {
		return w, nil
	}
	return recent.Tee(primary, w), nil
}

// Recent writes to w a finalized Tachyon file of the last d of the running
// profile's samples, from its recent window (WithRecent), while profiling
// goes on, and returns the span the file covers. It is RecentContext
// without a context.
func Recent(w io.Writer, d time.Duration) (RecentSpan, error) {
	return RecentContext(context.Background(), w, d)
}

// RecentContext writes to w a finalized Tachyon file of the samples of
// the running profile from d before the call to the call, from its recent
// window (WithRecent), and returns the span the file covers; it fails with
// ErrNoRecent when no running profile keeps a window.
//
// The sampler writes the samples of the last moments a few seconds late
// (the trace backend writes a goroutine's ticks in batches), so
// RecentContext first waits until the samples up to the call are in,
// typically 2 to 5 seconds and at most recent.DefaultMaxWait. The span is
// exact, and every sample of it is in the file: From is d before the
// call unless the window holds less (it keeps WithRecent's length, less
// when its bound of bytes dropped some, and nothing before Start); To is
// the call's time unless the wait ran out, and then the last time the
// window had every sample of, which the profile's log says. The file's header start time is From.
// Writing goes to w's current offset if w is a seekable io.WriteSeeker
// (an *os.File), else through a buffer in memory of the file's size. ctx
// cancels the wait and the writing.
func RecentContext(ctx context.Context, w io.Writer, d time.Duration) (RecentSpan, error) {
	p := current.Load()
	if p == nil || p.rw == nil {
		return RecentSpan{}, ErrNoRecent
	}
	if d <= 0 {
		return RecentSpan{}, fmt.Errorf("profiler: Recent: duration %v: want a positive one", d)
	}
	to := time.Now()
	sp, err := p.rw.WriteFile(ctx, w, to.Add(-d), to)
	if errors.Is(err, recent.ErrClosed) {
		return sp, ErrNoRecent // the profile stopped meanwhile
	}
	return sp, err
}

// RecentStats returns the state of the profile's recent window: how much
// it holds, and since when (see recent.Stats); zero without a window.
func (p *Profile) RecentStats() recent.Stats {
	if p.rw == nil {
		return recent.Stats{}
	}
	return p.rw.Stats()
}

// stopRecent ends the recent window once the sampler has stopped: the
// window takes its last samples, the captures under way are written,
// and its memory is released.
func (p *Profile) stopRecent() {
	if p.rw == nil {
		return
	}
	p.stopSignal()
	p.rw.Close()
	p.stopCaptures()
	p.rw.Release()
}

// recentSummary is the part of Stop's log line about the recent window
// and captures.
func (p *Profile) recentSummary() string {
	if p.rw == nil {
		return ""
	}
	s := fmt.Sprintf(" (recent window of %v", p.cfg.recent)
	if d := p.rw.Stats().Dropped; d > 0 {
		bound := fmt.Sprintf("%d bytes", p.cfg.recentBytes)
		if p.cfg.recentBytes == 0 {
			bound = fmt.Sprintf("%d bytes of samples", DefaultRecentBytes)
		}
		s += fmt.Sprintf("; its bound of %s dropped %d chunks before they were that old", bound, d)
	}
	if c := p.CaptureStats(); c.Taken+c.Limited+c.Failed > 0 {
		s += fmt.Sprintf("; %d captures, %d refused by the rate limit, %d failed", c.Taken, c.Limited, c.Failed)
	}
	return s + ")"
}
