package sampler

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// memSink is an in-memory Sink that keeps every sample, resolved. Like the
// writer, it refuses a thread that was forgotten.
type memSink struct {
	mu      sync.Mutex
	frames  []tachyon.Frame
	index   map[tachyon.Frame]uint32
	samples []memSample
	threads map[*writer.Thread]*memThread
}

// memThread is a thread handle's state.
type memThread struct {
	id        uint64
	stack     []tachyon.Frame
	started   bool
	forgotten bool
}

type memSample struct {
	gid    uint64
	ts     uint64
	status tachyon.Status
	stack  []tachyon.Frame
}

func newMemSink() *memSink {
	return &memSink{index: make(map[tachyon.Frame]uint32), threads: make(map[*writer.Thread]*memThread)}
}

func (m *memSink) Frame(f tachyon.Frame) uint32 {
	if i, ok := m.index[f]; ok {
		return i
	}
	i := uint32(len(m.frames))
	m.frames = append(m.frames, f)
	m.index[f] = i
	return i
}

func (m *memSink) Thread(id uint64, interp uint32) *writer.Thread {
	h := new(writer.Thread)
	m.threads[h] = &memThread{id: id}
	return h
}

func (m *memSink) WriteThreadStack(h *writer.Thread, ts uint64, status tachyon.Status, stack []uint32) error {
	t := m.threads[h]
	if t == nil || t.forgotten {
		return fmt.Errorf("write to an unknown or forgotten thread")
	}
	fr := make([]tachyon.Frame, len(stack))
	for i, idx := range stack {
		if int(idx) >= len(m.frames) {
			return fmt.Errorf("frame index %d out of range", idx)
		}
		fr[i] = m.frames[idx]
	}
	t.stack, t.started = fr, true
	m.mu.Lock()
	m.samples = append(m.samples, memSample{t.id, ts, status, fr})
	m.mu.Unlock()
	return nil
}

func (m *memSink) RepeatEvery(h *writer.Thread, ts, step uint64, n int, status tachyon.Status) error {
	t := m.threads[h]
	if t == nil || t.forgotten || !t.started {
		return fmt.Errorf("repeat of an unknown, forgotten or empty thread")
	}
	m.mu.Lock()
	for i := range uint64(n) {
		m.samples = append(m.samples, memSample{t.id, ts + i*step, status, t.stack})
	}
	m.mu.Unlock()
	return nil
}

func (m *memSink) FlushThread(*writer.Thread) {}

func (m *memSink) Forget(h *writer.Thread) {
	if t := m.threads[h]; t != nil {
		t.forgotten = true
	}
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
type discardSink struct {
	n uint32
	h writer.Thread
}

func (d *discardSink) Frame(tachyon.Frame) uint32 { d.n++; return d.n - 1 }

func (d *discardSink) Thread(uint64, uint32) *writer.Thread { return &d.h }

func (d *discardSink) WriteThreadStack(*writer.Thread, uint64, tachyon.Status, []uint32) error {
	return nil
}

func (d *discardSink) RepeatEvery(*writer.Thread, uint64, uint64, int, tachyon.Status) error {
	return nil
}

func (d *discardSink) FlushThread(*writer.Thread) {}

func (d *discardSink) Forget(*writer.Thread) {}
