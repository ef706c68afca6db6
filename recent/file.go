package recent

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Span is what a file written from a window covers: every sample the
// sampler wrote at or after From and before To, of Goroutines goroutines.
type Span struct {
	From, To   time.Time
	Samples    uint64
	Goroutines int
}

// forceGrace is how long WriteFile waits, after forcing the open chunk
// to be finalized, for the writing goroutine to do it.
const forceGrace = time.Second

// WriteFile writes to dst one finalized Tachyon file of the window's
// samples at or after from and before to, and returns the span it covers:
// from dst's current offset if dst is an io.WriteSeeker that seeks (an
// *os.File of a regular file), else through a buffer in memory the size
// of the file. It is safe from any goroutine, and the
// window goes on taking samples meanwhile.
//
// The samples of the last moments are written late (the trace backend
// writes a goroutine's ticks in batches, seconds after their time):
// WriteFile first waits until the sampler's watermark passes to, at most
// Options.MaxWait, and has the open chunk finalized then. The span is
// exact: From is from, or later if the window no longer holds every
// sample of the time between (it keeps Options.Duration, and less when
// Options.MaxBytes dropped chunks, or the profile started later); To is
// to, or earlier if the samples before to were not all written within
// MaxWait. A sample of the span is in the file, at its time; nothing
// else is. The file's header start time is From. ctx cancels the wait and
// the writing, with ctx's error.
func (w *Window) WriteFile(ctx context.Context, dst io.Writer, from, to time.Time) (Span, error) {
	if ws, ok := dst.(io.WriteSeeker); ok {
		if _, err := ws.Seek(0, io.SeekCurrent); err == nil {
			return w.writeFile(ctx, ws, from, to)
		}
	}
	var b buffer
	sp, err := w.writeFile(ctx, &b, from, to)
	if err != nil {
		return sp, err
	}
	if _, err := dst.Write(b.b); err != nil {
		return sp, fmt.Errorf("recent: %w", err)
	}
	return sp, nil
}

// writeFile is WriteFile into a seekable dst.
func (w *Window) writeFile(ctx context.Context, dst io.WriteSeeker, from, to time.Time) (Span, error) {
	f, t := uint64(max(from.UnixMicro(), 0)), uint64(max(to.UnixMicro(), 0))
	if err := w.await(ctx, t); err != nil {
		return Span{}, err
	}
	w.mu.Lock()
	chunks, err := slices.Clone(w.chunks), w.err
	asked := t
	f, t = max(f, w.since), min(t, w.complete)
	closed := w.closed
	w.mu.Unlock()
	if t < asked && !closed && err == nil {
		w.logShort(asked, t)
	}
	switch {
	case closed:
		return Span{}, ErrClosed
	case err != nil:
		return Span{}, err
	}
	f = min(f, t) // an empty span, as it holds nothing: ending at the time asked at the latest
	out, err := writer.New(dst, writer.Options{StartTime: f, Interval: w.opts.Interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		return Span{}, fmt.Errorf("recent: %w", err)
	}
	c := cutter{out: out, from: f, to: t}
	for _, ch := range chunks {
		if ch.maxTS < f || ch.minTS >= t {
			continue
		}
		if err := ctx.Err(); err != nil {
			out.Close()
			return Span{}, err
		}
		if err := c.copy(ch); err != nil {
			out.Close()
			return Span{}, err
		}
	}
	if err := out.Close(); err != nil {
		return Span{}, fmt.Errorf("recent: %w", err)
	}
	st := out.Stats()
	return Span{From: time.UnixMicro(int64(f)), To: time.UnixMicro(int64(t)), Samples: st.Samples, Goroutines: st.Threads}, nil
}

// await waits until the finalized chunks hold every sample before to, or
// MaxWait has passed and the open chunk has been finalized (or the
// writing goroutine did not answer within forceGrace), or the window is
// closed or stopped.
func (w *Window) await(ctx context.Context, to uint64) error {
	timer := time.NewTimer(w.opts.MaxWait)
	defer timer.Stop()
	forced := false
	for {
		w.mu.Lock()
		done := w.complete >= to || w.closed || w.err != nil
		rolled := w.rolled
		w.mu.Unlock()
		if done {
			return nil
		}
		for {
			old := w.want.Load() // the earliest time a reader waits for
			if old != 0 && old <= to || w.want.CompareAndSwap(old, to) {
				break
			}
		}
		select {
		case <-rolled:
			if forced {
				return nil // the chunk forced is in
			}
		case <-timer.C:
			if forced {
				return nil // the writing goroutine is away: what is finalized
			}
			forced = true
			w.force.Store(true)
			timer.Reset(forceGrace)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// logShort says that a file ends before the time asked for: the sampler
// had not vouched for the samples up to it within MaxWait.
func (w *Window) logShort(asked, got uint64) {
	if w.opts.Logf == nil {
		return
	}
	w.opts.Logf("profiler: recent: the samples before %v were not all in after a wait of %v: the file ends %v short of it, at %v",
		time.UnixMicro(int64(asked)).Format(time.RFC3339Nano), w.opts.MaxWait, time.Duration(asked-got)*time.Microsecond, time.UnixMicro(int64(got)).Format(time.RFC3339Nano))
}

// cutter copies the samples of a time span from chunks into one writer.
type cutter struct {
	out      *writer.Writer
	from, to uint64
	remap    []uint32 // the chunk's frame index -> out's + 1 (0: not yet)
	stack    []uint32
}

// copy copies the samples of ch in the span.
func (c *cutter) copy(ch *chunk) error {
	f, err := reader.NewFileBytes(ch.data)
	if err != nil {
		return fmt.Errorf("recent: a chunk of the window: %w", err)
	}
	defer f.Close()
	n := len(f.FrameRefs())
	c.remap = slices.Grow(c.remap[:0], n)[:n]
	clear(c.remap)
	it := f.Samples()
	defer it.Close()
	for it.NextEvenRun() {
		s, r := it.Sample(), it.Run()
		k0, k1 := c.cut(s.Timestamp, r.Step, r.Count)
		if k0 >= k1 {
			continue
		}
		th := c.out.Thread(s.ThreadID, s.InterpreterID)
		ts := s.Timestamp + k0*r.Step
		if err := th.Write(ts, s.Status, c.outStack(f, s.Stack)); err != nil {
			return fmt.Errorf("recent: %w", err)
		}
		if k1-k0 > 1 {
			if err := th.RepeatEvery(ts+r.Step, r.Step, int(k1-k0-1), s.Status); err != nil {
				return fmt.Errorf("recent: %w", err)
			}
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("recent: a chunk of the window: %w", err)
	}
	return nil
}

// cut returns the indices [k0, k1) of the samples at ts, ts+step, ...
// (n of them) that fall in the span.
func (c *cutter) cut(ts, step, n uint64) (k0, k1 uint64) {
	if step == 0 || n == 1 {
		if ts >= c.from && ts < c.to {
			return 0, n
		}
		return 0, 0
	}
	if ts < c.from {
		k0 = (c.from - ts + step - 1) / step
	}
	if c.to <= ts {
		return 0, 0
	}
	return k0, min(n, (c.to-ts+step-1)/step)
}

// outStack maps a chunk's stack onto the output's frame indices.
func (c *cutter) outStack(f *reader.File, in []uint32) []uint32 {
	c.stack = c.stack[:0]
	for _, i := range in {
		o := c.remap[i]
		if o == 0 {
			o = c.out.Frame(f.Frame(i)) + 1
			c.remap[i] = o
		}
		c.stack = append(c.stack, o-1)
	}
	return c.stack
}
