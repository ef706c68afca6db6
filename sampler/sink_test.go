package sampler

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gotachyon/profiler/writer"
)

// memSink is an in-memory Sink that keeps every sample, resolved.
type memSink struct {
	mu      sync.Mutex
	frames  []writer.Frame
	index   map[writer.Frame]uint32
	samples []memSample
	calls   int // WriteStack calls from more than one goroutine would race here
}

type memSample struct {
	gid    uint64
	ts     uint64
	status uint8
	stack  []writer.Frame
}

func newMemSink() *memSink { return &memSink{index: make(map[writer.Frame]uint32)} }

func (m *memSink) Frame(f writer.Frame) uint32 {
	if i, ok := m.index[f]; ok {
		return i
	}
	i := uint32(len(m.frames))
	m.frames = append(m.frames, f)
	m.index[f] = i
	return i
}

func (m *memSink) WriteStack(gid uint64, interp uint32, ts uint64, status uint8, stack []uint32) error {
	if interp != 0 {
		return fmt.Errorf("interp %d", interp)
	}
	fr := make([]writer.Frame, len(stack))
	for i, idx := range stack {
		if int(idx) >= len(m.frames) {
			return fmt.Errorf("frame index %d out of range", idx)
		}
		fr[i] = m.frames[idx]
	}
	m.mu.Lock()
	m.samples = append(m.samples, memSample{gid, ts, status, fr})
	m.mu.Unlock()
	return nil
}

func (m *memSink) all() []memSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]memSample(nil), m.samples...)
}

// of returns the samples of goroutine gid.
func (m *memSink) of(gid uint64) []memSample {
	var out []memSample
	for _, s := range m.all() {
		if s.gid == gid {
			out = append(out, s)
		}
	}
	return out
}

func (s memSample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "g%d status=%#x:", s.gid, s.status)
	for _, f := range s.stack {
		fmt.Fprintf(&b, " %s", f.Func)
	}
	return b.String()
}

// hasFunc reports whether the stack contains a function with this suffix.
func (s memSample) hasFunc(suffix string) bool {
	for _, f := range s.stack {
		if strings.HasSuffix(f.Func, suffix) {
			return true
		}
	}
	return false
}

// discardSink numbers frames and drops samples, for benchmarks.
type discardSink struct{ n uint32 }

func (d *discardSink) Frame(writer.Frame) uint32 { d.n++; return d.n - 1 }

func (d *discardSink) WriteStack(uint64, uint32, uint64, uint8, []uint32) error { return nil }
