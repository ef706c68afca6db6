package profiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/gotachyon/profiler/segment"
)

// errSegmentOutput refuses WithSegment with what it cannot write to.
var errSegmentOutput = errors.New("profiler: WithSegment writes files in a directory: it cannot be combined with WithOutput or WithExport")

// openDir creates or checks the segments' directory.
func (p *Profile) openDir() error {
	if p.cfg.out != nil || len(p.cfg.exports) > 0 {
		return errSegmentOutput
	}
	if p.cfg.path == "" {
		dir, err := os.MkdirTemp("", "tachyon-*")
		if err != nil {
			return fmt.Errorf("profiler: %w", err)
		}
		p.name = dir
		return nil
	}
	dir, err := filepath.Abs(p.cfg.path) // where it is now, whatever the program's working directory later
	if err != nil {
		return fmt.Errorf("profiler: segments: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("profiler: segments: %w", err)
	}
	p.name = dir
	return nil
}

// newSegments opens the first segment, starting at start. The first one
// ends early (firstCheckpoint), so that a process that dies soon after
// Start still leaves a finished file.
func (p *Profile) newSegments(start time.Time) (*segment.Writer, error) {
	opts := segment.Options{
		Dir:         p.name,
		StartTime:   uint64(start.UnixMicro()),
		Period:      p.cfg.segment,
		First:       firstCheckpoint,
		Interval:    uint64(1e6 / p.cfg.rate),
		Compression: p.cfg.compression,
		KeepFiles:   p.cfg.keepFiles,
		KeepBytes:   p.cfg.keepBytes,
		Closed:      p.runHooks,
		Logf:        p.logf,
	}
	seg, err := segment.New(opts)
	if err != nil {
		return nil, fmt.Errorf("profiler: starting segments in %s: %w", opts.Dir, err)
	}
	return seg, nil
}

// crashNote is the part of Start's log line that says where the data is
// if the process dies before Stop.
func (p *Profile) crashNote() string {
	switch {
	case p.part != "":
		return fmt.Sprintf("; until Stop, %s keeps the profile as of its last checkpoint (every %v), which a crash leaves for tachyon to read", p.part, p.cfg.checkpoint)
	case p.cfg.segment > 0:
		return fmt.Sprintf("; a crash loses only the open segments (%v and the sampler's lag)", p.cfg.segment)
	}
	return ""
}

// finishing has the profile's writer, and its recent window's, compress
// what Stop writes on several cores: the program waits for it.
func (p *Profile) finishing() {
	if p.rw != nil {
		p.rw.Finishing()
	}
	switch {
	case p.seg != nil:
		p.seg.Finishing()
	case p.ck != nil:
		p.ck.Finishing()
	case p.w != nil:
		p.w.Finishing()
	}
}

// closeSink finalizes the file, or the open segment and every closed one
// still being finalized (their hooks included).
func (p *Profile) closeSink() error {
	switch {
	case p.seg != nil:
		return p.seg.Close()
	case p.ck != nil:
		done, err := p.ck.Close()
		p.done = done
		return err
	case p.w != nil:
		return p.w.Close()
	}
	return nil // WithNoFile
}

// OnSegment registers fn to be called with the path of every finalized
// segment of a profile started WithSegment, in order, from one goroutine
// that is not the sampler's; last is true for the segment closed by Stop,
// and Stop returns only once every fn has returned for it (so an uploader
// can flush there). The fns registered are called one after the other for
// each segment, and the next segment waits for them: fn must return
// promptly (hand the path to a goroutine of its own for slow work), and
// must read the file before returning if a budget (WithKeep) may delete
// it. fn must not call Stop, which waits for it (Stop called from fn
// returns an error and stops nothing). A panic in fn is logged
// and does not stop the others.
//
// Segments finalized before fn was registered are not passed to it;
// registering right after Start (as a package's init does with
// auto.Profile) misses none. Without WithSegment, fn is called once, from
// Stop, with the finished file (last true); not for a WithOutput writer.
// If the last segment, or the file, could not be written, fn is called
// with path "" and last true: the call with last true always comes, so
// that an uploader can end.
func (p *Profile) OnSegment(fn func(path string, last bool)) {
	if fn == nil {
		return
	}
	p.hooksMu.Lock()
	p.hooks = append(p.hooks, fn)
	p.hooksMu.Unlock()
}

// runHooks calls the OnSegment functions for one finalized file.
func (p *Profile) runHooks(path string, last bool) {
	p.hooksMu.Lock()
	hooks := slices.Clone(p.hooks)
	p.hooksMu.Unlock()
	for _, fn := range hooks {
		p.callHook(fn, path, last)
	}
}

// callHook calls fn, logging a panic.
func (p *Profile) callHook(fn func(string, bool), path string, last bool) {
	defer p.callback()()
	defer func() {
		if r := recover(); r != nil {
			p.logf("profiler: panic in an OnSegment function for %s: %v\n%s", path, r, debug.Stack())
		}
	}()
	fn(path, last)
}

// SegmentStats returns what the segments of a WithSegment profile came to
// so far (safe at any time): how many were finalized, how many the budget
// deleted, their bytes, and the longest pause a rollover made in the
// sampler. It is zero without WithSegment.
func (p *Profile) SegmentStats() segment.Stats {
	if p.seg == nil {
		return segment.Stats{}
	}
	return p.seg.Stats()
}

// segmentSummary is the part of Stop's log line about segments.
func (p *Profile) segmentSummary() string {
	if p.ck != nil {
		st := p.ck.Stats()
		return fmt.Sprintf(" (%d checkpoints, the longest paused the sampler %v)", st.Checkpoints, st.LongestPause.Round(time.Microsecond))
	}
	if p.seg == nil {
		return ""
	}
	st := p.seg.Stats()
	s := fmt.Sprintf(" (%d segments, %d bytes", st.Written, st.Bytes)
	if st.Deleted > 0 {
		s += fmt.Sprintf(", %d deleted by the budget", st.Deleted)
	}
	if st.Errors > 0 {
		s += fmt.Sprintf(", writing failed for %v (%d tries)", st.Outage.Round(time.Millisecond), st.Errors)
	}
	if st.Dropped > 0 || st.Lost > 0 {
		s += fmt.Sprintf(", %d samples dropped, %d segments lost", st.Dropped, st.Lost)
	}
	if st.Stale > 0 {
		s += fmt.Sprintf(", %d stale .part files of dead runs removed", st.Stale)
	}
	if st.Late > 0 {
		s += fmt.Sprintf(", %d samples left out, come after their segment was finalized", st.Late)
	}
	if st.EndedFull > 0 {
		s += fmt.Sprintf(", %d ended before their period's end, full", st.EndedFull)
	}
	return s + ")"
}
