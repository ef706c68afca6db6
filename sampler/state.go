package sampler

import (
	"fmt"
	"sync/atomic"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// maxDepth caps the stacks handed to the sink (innermost frames kept).
const maxDepth = tachyon.MaxWriteDepth

// state is what both backends share: the sink, the wait-reason frames and
// the counters behind Stats. It is used by one goroutine at a time (the
// backend's goroutine, then Stop after that goroutine has ended).
type state struct {
	cfg     Config
	sink    Sink
	tsink   ThreadSink        // sink's handle API, nil if it has none
	reasons map[string]uint32 // wait reason -> index of its synthetic frame
	scratch []uint32

	samples, ticks, dropped uint64
	distinct                int
	// seen holds the goroutines counted in distinct that may still be
	// sampled, across backends (the Auto supervisor switches them).
	seen map[uint64]struct{}
	err  error
	// helper is the goroutine id of the Auto supervisor (0 if none),
	// left out of the samples like the backends' own goroutines.
	helper atomic.Uint64
}

func newState(cfg Config, sink Sink) *state {
	st := &state{cfg: cfg, sink: sink, reasons: make(map[string]uint32), scratch: make([]uint32, 0, maxDepth),
		seen: make(map[uint64]struct{})}
	st.tsink, _ = sink.(ThreadSink)
	return st
}

// markSeen counts goroutine id in Stats.Goroutines the first time it is
// sampled.
func (st *state) markSeen(id uint64) {
	if _, ok := st.seen[id]; !ok {
		st.seen[id] = struct{}{}
		st.distinct++
	}
}

// setErr records the first problem met.
func (st *state) setErr(err error) {
	if st.err == nil {
		st.err = err
	}
}

// reasonFrame returns the frame index of the synthetic "[reason]" frame.
func (st *state) reasonFrame(reason string) uint32 {
	if idx, ok := st.reasons[reason]; ok {
		return idx
	}
	idx := st.sink.Frame(writer.Frame{Func: "[" + reason + "]"})
	st.reasons[reason] = idx
	return idx
}

// reasonFrameBytes is reasonFrame for a reason held in a byte slice; it
// allocates only the first time a reason is seen.
func (st *state) reasonFrameBytes(reason []byte) uint32 {
	if idx, ok := st.reasons[string(reason)]; ok {
		return idx
	}
	return st.reasonFrame(string(reason))
}

// ThreadSink is implemented by sinks that hand out per-thread handles, such
// as *writer.Writer. The trace backend then keeps a handle per goroutine,
// skipping a lookup per sample, writes a goroutine whose stack has not
// changed since its previous sample as a Repeat (a run of unchanged wall
// ticks as one RepeatEvery), and forgets goroutines that end so the sink's
// state stays bounded.
type ThreadSink interface {
	Sink
	Thread(id uint64, interp uint32) *writer.Thread
	WriteThreadStack(t *writer.Thread, ts uint64, status uint8, stack []uint32) error
	Repeat(t *writer.Thread, ts uint64, status uint8) error
	RepeatEvery(t *writer.Thread, ts, step uint64, n int, status uint8) error
	Forget(t *writer.Thread)
}

// emitThread writes one sample of goroutine gid through its handle *h
// (created on first use); same says the stack and wait reason are those of
// the goroutine's previous sample. It returns the sink's error, already
// counted.
func (st *state) emitThread(h **writer.Thread, gid, ts uint64, status uint8, reasonIdx int64, stack []uint32, same bool) error {
	if *h == nil {
		*h = st.tsink.Thread(gid, 0)
	}
	var err error
	if same {
		err = st.tsink.Repeat(*h, ts, status)
	} else {
		err = st.tsink.WriteThreadStack(*h, ts, status, st.withReason(reasonIdx, stack))
	}
	st.count(err)
	return err
}

// emitRun writes n samples of goroutine gid with one stack and status at
// ts, ts+step, ...: the first as emitThread would, the rest as one
// RepeatEvery.
func (st *state) emitRun(h **writer.Thread, gid, ts, step uint64, n int, status uint8, reasonIdx int64, stack []uint32, same bool) {
	if n <= 0 {
		return
	}
	if !same {
		if st.emitThread(h, gid, ts, status, reasonIdx, stack, false) != nil {
			st.dropped += uint64(n - 1)
			return
		}
		ts, n = ts+step, n-1
	}
	if n == 0 {
		return
	}
	if *h == nil {
		*h = st.tsink.Thread(gid, 0)
	}
	if err := st.tsink.RepeatEvery(*h, ts, step, n, status); err != nil {
		st.dropped += uint64(n)
		st.setErr(fmt.Errorf("sampler: sink: %w", err))
		return
	}
	st.samples += uint64(n)
}

// count records the outcome of one write to the sink.
func (st *state) count(err error) {
	if err != nil {
		st.dropped++
		st.setErr(fmt.Errorf("sampler: sink: %w", err))
		return
	}
	st.samples++
}

// withReason returns stack with the synthetic wait-reason frame on top when
// reasonIdx >= 0 and Config.NoWaitReasonFrames is off, cut to maxDepth.
func (st *state) withReason(reasonIdx int64, stack []uint32) []uint32 {
	out := stack
	if reasonIdx >= 0 && !st.cfg.NoWaitReasonFrames {
		st.scratch = append(st.scratch[:0], uint32(reasonIdx))
		st.scratch = append(st.scratch, stack...)
		out = st.scratch
	}
	if len(out) > maxDepth {
		out = out[:maxDepth]
	}
	return out
}

// emit writes one sample; reasonIdx >= 0 adds the synthetic wait-reason frame
// unless Config.NoWaitReasonFrames.
func (st *state) emit(gid, ts uint64, status uint8, reasonIdx int64, stack []uint32) {
	st.count(st.sink.WriteStack(gid, 0, ts, status, st.withReason(reasonIdx, stack)))
}
