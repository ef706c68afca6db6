package merge

import (
	"fmt"
	"slices"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// threadKey identifies a thread across the inputs.
type threadKey struct {
	id     uint64
	interp uint32
	run    uint32 // the input's run number (Options.SeparateRuns), else 0
}

// thread is a thread's state across the inputs.
type thread struct {
	h      *writer.Thread
	last   uint64 // timestamp of its last sample, in µs
	where  string // the input of that sample
	inFile int    // 1 + index of the input it was last seen in
}

// pending is a run of samples of one thread with its previous stack and
// one status, evenly spaced, not yet handed to the writer: consecutive
// samples of a REPEAT record gather here and are written by one call.
type pending struct {
	t      *thread
	status tachyon.Status
	first  uint64 // timestamp of the first sample
	step   uint64 // between samples; meaningful once n > 1
	n      int
}

// merger copies the inputs' samples into one writer.
type merger struct {
	w       *writer.Writer
	threads map[threadKey]*thread
	file    int      // 1 + index of the input being copied
	runNo   uint32   // the run number of the input being copied
	remap   []uint32 // the input's frame index -> 1 + the output's, 0 unseen
	stack   []uint32
	run     pending
	// cut counts the stacks written deeper than the writer keeps.
	cut uint64
}

func newMerger(w *writer.Writer) *merger {
	return &merger{w: w, threads: make(map[threadKey]*thread)}
}

// copyFile copies every sample of the file at path.
func (m *merger) copyFile(path string) error {
	f, err := reader.Open(path)
	if err != nil {
		return err // names the file
	}
	defer f.Close()
	m.file++
	m.remap = slices.Grow(m.remap[:0], len(f.FrameRefs()))[:len(f.FrameRefs())]
	clear(m.remap)
	it := f.Samples()
	defer it.Close()
	var n uint64
	for it.NextEvenRun() {
		s, r := it.Sample(), it.Run()
		if err := m.sample(f, path, n, s); err != nil {
			return err
		}
		if r.Count > 1 {
			// The rest of an even run: REPEAT samples of the same thread.
			if err := m.extend(m.thread(s.ThreadID, s.InterpreterID), s.Timestamp+r.Step, r.Step, r.Count-1, s.Status); err != nil {
				return err
			}
		}
		n += r.Count
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return m.flush()
}

// sample copies the n-th sample s of the input f at path.
func (m *merger) sample(f *reader.File, path string, n uint64, s *reader.Sample) error {
	t := m.thread(s.ThreadID, s.InterpreterID)
	if s.Timestamp < t.last {
		return fmt.Errorf("%s: sample %d: %w: thread %d (interpreter %d) at %d us, after %d us in %s; "+
			"merge takes the segments of one run, in time order: are these files from different runs?",
			path, n, ErrBackwards, s.ThreadID, s.InterpreterID, s.Timestamp, t.last, t.where)
	}
	t.last, t.where = s.Timestamp, path
	// A REPEAT sample has the stack of the thread's previous sample in
	// this input, which is its previous sample in the output too.
	if s.Encoding == tachyon.Repeat && t.inFile == m.file {
		return m.repeat(t, s)
	}
	t.inFile = m.file
	if err := m.flush(); err != nil {
		return err
	}
	if len(s.Stack) > tachyon.MaxWriteDepth {
		m.cut++
	}
	return t.h.Write(s.Timestamp, s.Status, m.outStack(f, s.Stack))
}

// thread returns the state of thread (id, interp), creating it.
func (m *merger) thread(id uint64, interp uint32) *thread {
	k := threadKey{id, interp, m.runNo}
	t := m.threads[k]
	if t == nil {
		t = &thread{h: m.w.Thread(id, interp+m.runNo)}
		m.threads[k] = t
	}
	return t
}

// repeat adds a sample with t's previous stack to the pending run, or
// writes the run and starts another if the sample does not extend it.
func (m *merger) repeat(t *thread, s *reader.Sample) error {
	r := &m.run
	if r.n > 0 && r.t == t && r.status == s.Status {
		last := r.first + uint64(r.n-1)*r.step
		switch d := s.Timestamp - last; {
		case r.n == 1:
			r.step, r.n = d, 2
			return nil
		case d == r.step:
			r.n++
			return nil
		}
	}
	if err := m.flush(); err != nil {
		return err
	}
	m.run = pending{t: t, status: s.Status, first: s.Timestamp, n: 1}
	return nil
}

// extend adds n samples with t's previous stack and status st, the first
// at ts and the others step apart, to the pending run, which holds t's
// previous sample: they are the rest of an even run whose first sample
// sample has just added.
func (m *merger) extend(t *thread, ts, step, n uint64, st tachyon.Status) error {
	t.last = ts + (n-1)*step
	r := &m.run
	if r.n == 1 {
		r.step = step
	}
	if r.t == t && r.status == st && r.step == step && ts == r.first+uint64(r.n-1)*r.step+step {
		r.n += int(n)
		return nil
	}
	if err := m.flush(); err != nil {
		return err
	}
	m.run = pending{t: t, status: st, first: ts, step: step, n: int(n)}
	return nil
}

// flush writes the pending run.
func (m *merger) flush() error {
	r := m.run
	if r.n == 0 {
		return nil
	}
	m.run = pending{}
	return r.t.h.RepeatEvery(r.first, r.step, r.n, r.status)
}

// outStack maps an input stack to the output's frame indices, interning
// each input frame at its first use.
func (m *merger) outStack(f *reader.File, in []uint32) []uint32 {
	m.stack = m.stack[:0]
	for _, i := range in {
		o := m.remap[i]
		if o == 0 {
			o = m.w.Frame(f.Frame(i)) + 1
			m.remap[i] = o
		}
		m.stack = append(m.stack, o-1)
	}
	return m.stack
}
