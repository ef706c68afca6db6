package nytprof

import (
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Frame is one stack frame: source file, function symbol and line.
type Frame = tachyon.Frame

// Sample is one observation of one goroutine (thread).
type Sample struct {
	Thread uint64 // goroutine or thread id
	Interp uint32 // interpreter id (0 for Go)
	Status tachyon.Status
	// Stack holds frame indices (see Source.Frame), innermost first. It
	// may be reused by the source after the callback returns.
	Stack []uint32
	// Count is the number of samples s stands for: consecutive samples of
	// one goroutine with the same stack and status, such as a run of a
	// REPEAT record (reader.Samples.NextRun). 0 means 1.
	Count uint64
	// Kept is how many of Stack's outermost frames are those of the same
	// goroutine's previous sample (reader.Sample.Kept), if the source
	// knows; 0 says nothing. It spares the export a walk of the frames
	// kept of a deep stack.
	Kept int
}

// n returns the number of samples s stands for.
func (s *Sample) n() uint64 { return max(s.Count, 1) }

// Source is anything that yields samples: a Tachyon file (FromFile), an
// in-memory Profile, or a live profiler.
type Source interface {
	// StartTime is the profile's start in microseconds since the Unix
	// epoch; Interval the sampling interval in microseconds (each sample
	// weighs one interval).
	StartTime() uint64
	Interval() uint64
	// NumFrames is the number of frames; stack indices must be below it.
	NumFrames() int
	// Frame resolves frame index i (0 <= i < NumFrames).
	Frame(i uint32) Frame
	// Each calls fn for every sample in order and stops at fn's first
	// error, which it returns. A sample may stand for several
	// (Sample.Count).
	Each(fn func(s *Sample) error) error
}

// FromFile adapts a Tachyon reader.File to a Source.
func FromFile(f *reader.File) Source { return fileSource{f} }

type fileSource struct{ f *reader.File }

func (s fileSource) StartTime() uint64    { return s.f.Header.StartTime }
func (s fileSource) Interval() uint64     { return s.f.Header.Interval }
func (s fileSource) NumFrames() int       { return len(s.f.FrameRefs()) }
func (s fileSource) Frame(i uint32) Frame { return s.f.Frame(i) }

// Each yields the file's runs (reader.Samples.NextRun), each with its
// count: a parked goroutine's run of thousands of samples is one call.
func (s fileSource) Each(fn func(*Sample) error) error {
	it := s.f.Samples()
	defer it.Close()
	var smp Sample
	for it.NextRun() {
		r := it.Sample()
		smp = Sample{Thread: r.ThreadID, Interp: r.InterpreterID, Status: r.Status, Stack: r.Stack, Count: it.Run().Count, Kept: r.Kept}
		if err := fn(&smp); err != nil {
			return err
		}
	}
	return it.Err()
}

// Profile is an in-memory Source, handy for tests and for callers that
// collect samples themselves.
type Profile struct {
	Start   uint64 // microseconds since the Unix epoch
	Every   uint64 // sampling interval in microseconds
	Frames  []Frame
	Samples []Sample

	index map[Frame]uint32
}

// Add appends a sample whose frames are given innermost first, interning
// the frames into p.Frames.
func (p *Profile) Add(thread uint64, status tachyon.Status, frames ...Frame) {
	if p.index == nil {
		p.index = make(map[Frame]uint32, len(p.Frames))
		for i, f := range p.Frames {
			if _, ok := p.index[f]; !ok {
				p.index[f] = uint32(i)
			}
		}
	}
	stack := make([]uint32, len(frames))
	for i, f := range frames {
		idx, ok := p.index[f]
		if !ok {
			idx = uint32(len(p.Frames))
			p.Frames = append(p.Frames, f)
			p.index[f] = idx
		}
		stack[i] = idx
	}
	p.Samples = append(p.Samples, Sample{Thread: thread, Status: status, Stack: stack})
}

// StartTime implements Source.
func (p *Profile) StartTime() uint64 { return p.Start }

// Interval implements Source.
func (p *Profile) Interval() uint64 { return p.Every }

// NumFrames implements Source.
func (p *Profile) NumFrames() int { return len(p.Frames) }

// Frame implements Source.
func (p *Profile) Frame(i uint32) Frame { return p.Frames[i] }

// Each implements Source.
func (p *Profile) Each(fn func(*Sample) error) error {
	for i := range p.Samples {
		if err := fn(&p.Samples[i]); err != nil {
			return err
		}
	}
	return nil
}
