package collapsed

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotachyon/profiler/tachyon"
)

// FrameFormat says how a frame is written in a folded stack.
type FrameFormat uint8

// Frame formats. The zero value is the format of the shared test vectors.
const (
	FileFuncLine FrameFormat = iota // file:function:line (the default)
	FuncLine                        // function:line
	Func                            // function
)

var frameFormatNames = [...]string{"file-func-line", "func-line", "func"}

// String returns the format's name as accepted by ParseFrameFormat.
func (ff FrameFormat) String() string {
	if int(ff) < len(frameFormatNames) {
		return frameFormatNames[ff]
	}
	return fmt.Sprintf("FrameFormat(%d)", uint8(ff))
}

// ParseFrameFormat returns the FrameFormat named s: "file-func-line",
// "func-line" or "func".
func ParseFrameFormat(s string) (FrameFormat, error) {
	for i, n := range frameFormatNames {
		if n == s {
			return FrameFormat(i), nil
		}
	}
	return 0, fmt.Errorf("unknown frame format %q (want one of %s)", s, strings.Join(frameFormatNames[:], ", "))
}

// Options change how Lines folds a profile. The zero value gives the format
// of the shared test vectors.
type Options struct {
	// Frames is how each frame is written. FileFuncLine, the spec's
	// format, writes names exactly as they are. FuncLine and Func write
	// the Go sampler's synthetic frames (tachyon.Synthetic: wait reasons,
	// "[runtime]", "[no CPU sample]") as their bare name, such as
	// "[chan receive]", and replace ';' in names by ':' and
	// line breaks by spaces, so that every line parses in flamegraph.pl.
	Frames FrameFormat
	// ByGoroutine adds an outermost frame "goroutine N" (N the sample's
	// thread id, the goroutine id for the Go sampler), so that each
	// goroutine gets its own tower in a flame graph; with Labels, it goes
	// under the label frames.
	ByGoroutine bool
	// Labels keeps the label frames (tachyon.LabelOf) at the root of their
	// samples' stacks, the smallest key outermost, so that a flame graph
	// has a tower per label set, such as one per HTTP route; without it
	// they are left out and a labelled file folds as it would without
	// labels. FileFuncLine writes a label frame as the file has it
	// ("<labels>:http.route=/api:0", as every Tachyon reader reads it),
	// FuncLine and Func as "http.route=/api".
	Labels bool
	// States, when not empty, keeps only the samples in one of these
	// states.
	States []tachyon.State
	// MaxBytes bounds the bytes kept for the distinct folded stacks (their
	// text and key), and so the export's memory; 0 means DefaultMaxBytes.
	// Past it Lines fails with a *limits.Error (limits.FoldedBytes).
	MaxBytes int
}

// DefaultMaxBytes is the default Options.MaxBytes: 64 MiB. A file of many
// distinct deep stacks is small on disk and would otherwise take gigabytes
// of text.
const DefaultMaxBytes = 64 << 20

// appendFrame appends fr written in format ff to b.
func appendFrame(b []byte, fr tachyon.Frame, ff FrameFormat) []byte {
	if ff == FileFuncLine {
		b = append(b, fr.File...)
		b = append(b, ':')
		b = append(b, fr.Func...)
		b = append(b, ':')
		return strconv.AppendInt(b, int64(fr.Line), 10)
	}
	b = appendSafe(b, fr.Func)
	if tachyon.Synthetic(fr) || tachyon.IsLabel(fr) {
		return b
	}
	if ff != Func {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(fr.Line), 10)
	}
	return b
}

// appendSafe appends name with ';' replaced by ':' and line breaks by
// spaces, the characters that would split a flamegraph.pl line.
func appendSafe(b []byte, name string) []byte {
	if !strings.ContainsAny(name, ";\n\r") {
		return append(b, name...)
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case ';':
			b = append(b, ':')
		case '\n', '\r':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return b
}
