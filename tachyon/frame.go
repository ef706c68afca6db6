package tachyon

// WaitFrame returns the synthetic frame a Go sampler puts innermost in a
// blocked goroutine's stack to carry its wait reason: a function named
// "[reason]", with no file and line 0.
func WaitFrame(reason string) Frame {
	return Frame{Func: "[" + reason + "]"}
}

// WaitReason reports whether fr is a frame made by WaitFrame, and returns
// the reason.
func WaitReason(fr Frame) (string, bool) {
	n := len(fr.Func)
	if fr.File != "" || fr.Line != 0 || n < 3 || fr.Func[0] != '[' || fr.Func[n-1] != ']' {
		return "", false
	}
	return fr.Func[1 : n-1], true
}

// Frame is one stack frame: file, function and line, as the frame table
// stores it (through string-table indices).
type Frame struct {
	File string
	Func string
	Line int32
}
