package limits

import "fmt"

// Limit is one of the exporters' bounds.
type Limit uint8

// The limits, and the option that sets each.
const (
	// StackFrames bounds the frames kept across a profile's distinct
	// stacks: Options.MaxStackFrames of pprof, speedscope, nytprof and
	// spx.
	StackFrames Limit = iota + 1
	// FoldedBytes bounds the bytes kept for the distinct folded stacks of
	// collapsed: collapsed.Options.MaxBytes.
	FoldedBytes
	// NameBytes bounds the bytes of sub names in a NYTProf file, which
	// repeats a name in each call-tree node: nytprof.Options.MaxNameBytes.
	NameBytes
	// Samples bounds a pprof profile's distinct samples (stack, goroutine
	// and state): pprof.Options.MaxSamples. Fewer goroutines with a label
	// of their own (pprof.Options.MaxGoroutines) make fewer samples.
	Samples
	// Reports bounds the reports of spx's per-goroutine layout, one per
	// goroutine: spx.MaxReports. spx.Options.Top chooses the busiest, and
	// the sequential layout writes one report.
	Reports
	// SampleFrames bounds the frames a pprof profile's samples list in
	// all, each sample its stack's (the encoder holds a word for each):
	// pprof.Options.MaxSampleFrames.
	SampleFrames
)

// Error is an export's error for a profile past one of its limits.
type Error struct {
	Limit Limit
	Max   int64 // the limit's value
	// Value is what the profile asked for when the export stopped, more
	// than Max. An export that stops at the first stack or sample past
	// the limit (StackFrames, FoldedBytes, Samples, SampleFrames) has not seen the rest:
	// the whole profile may ask for more.
	Value int64
}

// Error says what passed the limit, in words.
func (e *Error) Error() string {
	switch e.Limit {
	case StackFrames:
		return fmt.Sprintf("the profile's distinct stacks hold more than %d frames in all, the limit on what the export keeps in memory", e.Max)
	case FoldedBytes:
		return fmt.Sprintf("the profile's distinct folded stacks take more than %d bytes, the limit on what the export keeps in memory", e.Max)
	case NameBytes:
		return fmt.Sprintf("the file would hold %d bytes of sub names (NYTProf repeats a name in each call-tree node), more than the limit of %d", e.Value, e.Max)
	case Samples:
		return fmt.Sprintf("the profile has more than %d distinct samples (stack, goroutine, state), the limit on what the export keeps in memory", e.Max)
	case SampleFrames:
		return fmt.Sprintf("the profile's distinct samples list more than %d frames in all (each its stack's), the limit on what the export keeps in memory", e.Max)
	case Reports:
		return fmt.Sprintf("%d goroutines: the per-goroutine layout writes at most %d reports, one per goroutine", e.Value, e.Max)
	}
	return fmt.Sprintf("%d, more than the limit of %d", e.Value, e.Max)
}
