package sampler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gotachyon/profiler/tachyon"
)

// memSink is the tests' Sink: it keeps every sample, resolved, and checks
// the stream as a writer would: stacks of the frame indices it gave out, no
// repeat before a goroutine's first sample, nothing written to a goroutine
// it was told ended. With drop set it checks but keeps no sample, and
// allocates nothing per sample (benchmarks, allocation counts). hook, if
// set, is called first by every write, and its error returned.
type memSink struct {
	drop bool
	hook func() error

	frameTable
	mu      sync.Mutex // guards samples and gs
	samples []memSample
	gs      []*memGoroutine // every handle given out, unless drop
}

// memGoroutine is a memSink's handle of a goroutine.
type memGoroutine struct {
	m         *memSink
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

func newMemSink() *memSink { return &memSink{frameTable: newFrameTable()} }

// newDropSink returns a memSink that keeps no sample.
func newDropSink() *memSink {
	m := newMemSink()
	m.drop = true
	return m
}

func (m *memSink) Frame(f tachyon.Frame) uint32 { return m.intern(f) }

// frameTable is a test sink's frames, each given its index once.
type frameTable struct {
	frames []tachyon.Frame
	index  map[tachyon.Frame]uint32
}

func newFrameTable() frameTable { return frameTable{index: make(map[tachyon.Frame]uint32)} }

// intern returns f's index, adding f if it is new.
func (t *frameTable) intern(f tachyon.Frame) uint32 {
	if i, ok := t.index[f]; ok {
		return i
	}
	i := uint32(len(t.frames))
	t.frames = append(t.frames, f)
	t.index[f] = i
	return i
}

func (m *memSink) Goroutine(id uint64) Goroutine {
	g := &memGoroutine{m: m, id: id}
	if !m.drop {
		m.mu.Lock()
		m.gs = append(m.gs, g)
		m.mu.Unlock()
	}
	return g
}

func (g *memGoroutine) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	m := g.m
	if m.hook != nil {
		if err := m.hook(); err != nil {
			return err
		}
	}
	if g.forgotten {
		return fmt.Errorf("write to a forgotten goroutine %d", g.id)
	}
	for _, idx := range stack {
		if int(idx) >= len(m.frames) {
			return fmt.Errorf("frame index %d out of range", idx)
		}
	}
	g.started = true
	if m.drop {
		return nil
	}
	fr := make([]tachyon.Frame, len(stack))
	for i, idx := range stack {
		fr[i] = m.frames[idx]
	}
	g.stack = fr
	m.mu.Lock()
	m.samples = append(m.samples, memSample{g.id, ts, status, fr})
	m.mu.Unlock()
	return nil
}

func (g *memGoroutine) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	m := g.m
	if m.hook != nil {
		if err := m.hook(); err != nil {
			return err
		}
	}
	if g.forgotten || !g.started {
		return fmt.Errorf("repeat of a forgotten or empty goroutine %d", g.id)
	}
	if m.drop {
		return nil
	}
	m.mu.Lock()
	for i := range uint64(n) {
		m.samples = append(m.samples, memSample{g.id, ts + i*step, status, g.stack})
	}
	m.mu.Unlock()
	return nil
}

func (g *memGoroutine) Flush() {}

func (g *memGoroutine) Forget() { g.forgotten = true }

func (m *memSink) all() []memSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]memSample(nil), m.samples...)
}

// byGoroutine returns samples ordered by goroutine, each goroutine's in the
// order written: two parses of one trace write the same samples goroutine
// by goroutine, but may interleave goroutines otherwise (events of two
// threads at the same time are in no order, and the calls and starts the
// sampler folds in, gotrace.Reader.Elide, change which its reader takes
// first).
func byGoroutine(samples []memSample) []memSample {
	slices.SortStableFunc(samples, func(a, b memSample) int { return cmp.Compare(a.gid, b.gid) })
	return samples
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

// handles counts the handles the sink gave out for goroutine gid.
func (m *memSink) handles(gid uint64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.gs {
		if g.id == gid {
			n++
		}
	}
	return n
}

// goroutines counts the handles the sink gave out.
func (m *memSink) goroutines() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.gs)
}

// twice returns the goroutines the sink gave more than one handle: a
// Tachyon file would hold two threads of one id (the header's thread
// count off by one, the second thread's clock from the file's start).
func (m *memSink) twice() []uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[uint64]int, len(m.gs))
	var ids []uint64
	for _, g := range m.gs {
		if seen[g.id]++; seen[g.id] == 2 {
			ids = append(ids, g.id)
		}
	}
	return ids
}

// forgotten counts the goroutines the sink was told ended.
func (m *memSink) forgotten() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.gs {
		if g.forgotten {
			n++
		}
	}
	return n
}

func (s memSample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "g%d status=%#x:", s.gid, s.status)
	for _, f := range s.stack {
		fmt.Fprintf(&b, " %s", f.Func)
	}
	return b.String()
}

// code returns s without its creation-site label, which a goroutine
// created before the trace began gains where the snapshot backend
// samples it.
func (s memSample) code() memSample {
	if n := len(s.stack); n > 0 {
		if l, ok := tachyon.LabelOf(s.stack[n-1]); ok && l.Key == tachyon.LabelCreatedBy {
			s.stack = s.stack[:n-1]
		}
	}
	return s
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

// cpuSeen is the tests' Observer: it counts the on-CPU samples it is told
// of, by goroutine and timestamp.
type cpuSeen struct {
	mu sync.Mutex
	at map[[2]uint64]int
	n  int
}

func (c *cpuSeen) OnCPU(g, ts uint64, leafPC uintptr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = make(map[[2]uint64]int)
	}
	c.at[[2]uint64{g, ts}]++
	c.n++
}

// count returns how many samples c was told of.
func (c *cpuSeen) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
