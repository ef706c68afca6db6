package tachyon

// WaitFrame returns the synthetic frame a Go sampler puts innermost in a
// blocked goroutine's stack to carry its wait reason: a function named
// "[reason]", with no file and line 0.
func WaitFrame(reason string) Frame {
	return Frame{Func: "[" + reason + "]"}
}

// WaitReason reports whether fr is a frame made by WaitFrame, and returns
// the reason: a Synthetic frame other than RuntimeRoot and NoCPUSample. A
// blocked sample's innermost frame is the only place a wait reason stands
// for one; readers that break blocked time down by reason look there.
func WaitReason(fr Frame) (string, bool) {
	if !Synthetic(fr) || fr.Func == RuntimeRoot || fr.Func == NoCPUSample {
		return "", false
	}
	return fr.Func[1 : len(fr.Func)-1], true
}

// Synthetic reports whether fr is a frame a sampler made rather than code:
// a function name in brackets, such as "[chan receive]", "[runtime]" or
// "[no CPU sample]", with no file and line 0. Exports print such frames
// without a line.
func Synthetic(fr Frame) bool {
	n := len(fr.Func)
	return fr.File == "" && fr.Line == 0 && n >= 3 && fr.Func[0] == '[' && fr.Func[n-1] == ']'
}

// Frame is one stack frame: file, function and line, as the frame table
// stores it (through string-table indices).
type Frame struct {
	File string
	Func string
	Line int32
}

// Synthetic frames a Go sampler writes besides wait reasons. Like
// WaitFrame's, they have a function name in brackets, no file and line 0,
// so every Tachyon reader reads them as frames; readers of this module
// know them by these names.
const (
	// RuntimeRoot is the outermost frame of every sample of a runtime
	// system goroutine (GC workers, the sweeper, the scavenger, the
	// finalizer goroutine): views show these goroutines as one group,
	// after the program's own, and leave them out of default rankings.
	RuntimeRoot = "[runtime]"
	// NoCPUSample is the innermost frame of a sample of a goroutine that
	// held a P (a running goroutine, to the scheduler) while the CPU
	// profiler saw no CPU time of it: its thread was not running (the
	// machine or the container's quota was busy) or ran for less than a
	// CPU sample's period. Such samples are Runnable, never on CPU; the
	// rest of the stack is where the scheduler last saw the goroutine.
	NoCPUSample = "[no CPU sample]"
)

// IsRuntimeRoot reports whether fr is the RuntimeRoot frame.
func IsRuntimeRoot(fr Frame) bool {
	return fr.Func == RuntimeRoot && fr.File == "" && fr.Line == 0
}

// IsNoCPUSample reports whether fr is the NoCPUSample frame.
func IsNoCPUSample(fr Frame) bool {
	return fr.Func == NoCPUSample && fr.File == "" && fr.Line == 0
}
