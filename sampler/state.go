package sampler

import (
	"fmt"

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
	reasons map[string]uint32 // wait reason -> index of its synthetic frame
	scratch []uint32

	samples, ticks, dropped uint64
	distinct                int
	err                     error
}

func newState(cfg Config, sink Sink) *state {
	return &state{cfg: cfg, sink: sink, reasons: make(map[string]uint32), scratch: make([]uint32, 0, maxDepth)}
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

// emit writes one sample; reasonIdx >= 0 adds the synthetic wait-reason frame
// unless Config.NoWaitReasonFrames.
func (st *state) emit(gid, ts uint64, status uint8, reasonIdx int64, stack []uint32) {
	out := stack
	if reasonIdx >= 0 && !st.cfg.NoWaitReasonFrames {
		st.scratch = append(st.scratch[:0], uint32(reasonIdx))
		st.scratch = append(st.scratch, stack...)
		out = st.scratch
	}
	if len(out) > maxDepth {
		out = out[:maxDepth]
	}
	if err := st.sink.WriteStack(gid, 0, ts, status, out); err != nil {
		st.dropped++
		st.setErr(fmt.Errorf("sampler: sink: %w", err))
		return
	}
	st.samples++
}
