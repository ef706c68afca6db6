package labelframes

import (
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Frames knows which frames of one frame table are label frames. The zero
// value knows of none.
type Frames struct {
	label []bool // by frame index
	any   bool
}

// New returns the label frames of the n frames that frame resolves.
func New(n int, frame func(i uint32) tachyon.Frame) *Frames {
	x := &Frames{}
	for i := range n {
		if tachyon.IsLabel(frame(uint32(i))) {
			if x.label == nil {
				x.label = make([]bool, n)
			}
			x.label[i], x.any = true, true
		}
	}
	return x
}

// Of returns the label frames of f's frame table.
func Of(f *reader.File) *Frames { return New(len(f.FrameRefs()), f.Frame) }

// Any reports whether the table holds a label frame: a file without one
// reads as it did before labels.
func (x *Frames) Any() bool { return x.any }

// IsLabel reports whether frame index i is a label frame; an index out of
// the table's range is not.
func (x *Frames) IsLabel(i uint32) bool { return int(i) < len(x.label) && x.label[i] }

// Code returns how many of stack's frames (indices, innermost first) are
// code: those before its outermost run of label frames
// (tachyon.SplitLabels). Label frames elsewhere stay code.
func (x *Frames) Code(stack []uint32) int {
	if !x.any {
		return len(stack)
	}
	return tachyon.SplitLabels(len(stack), func(i int) bool { return x.IsLabel(stack[i]) })
}
