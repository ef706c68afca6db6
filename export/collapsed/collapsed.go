package collapsed

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Line is one folded stack and its sample count.
type Line struct {
	Stack string
	Count uint64
}

// Lines aggregates every sample of f with a non-empty stack. Frames are
// written as file:function:line, threads are merged, and lines are sorted by
// count (largest first), then by stack text in byte order. Any error of the
// reader is returned, and then no lines. Options o choose the frame format,
// goroutine frames and state filter; the zero Options give the format
// above.
//
// It reads the file run by run (reader.Samples.NextRun), weighing each by
// its count: a parked goroutine's thousands of samples cost one lookup.
func Lines(f *reader.File, o Options) ([]Line, error) {
	fd := newFolder(f, o)
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		if err := fd.add(it.Sample(), it.Run().Count); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return sortLines(mergeLines(fd.lines)), nil
}

// folder sums samples by folded stack.
type folder struct {
	f    *reader.File
	lf   *labelframes.Frames
	o    Options
	keep [tachyon.NumStates]bool // with o.States, the states kept
	// One map, from a stack's frame indexes to its line. Two stacks of
	// different frames can read the same (frames of equal text): their
	// lines are merged after sorting by text, not through a second map.
	byKey       map[string]int32
	lines       []Line
	key, text   []byte
	held, limit int // bytes of keys and texts kept, and the bound on them
}

func newFolder(f *reader.File, o Options) *folder {
	fd := &folder{f: f, lf: labelframes.Of(f), o: o, byKey: make(map[string]int32), limit: o.MaxBytes}
	if fd.limit <= 0 {
		fd.limit = DefaultMaxBytes
	}
	for _, s := range o.States {
		if int(s) < tachyon.NumStates {
			fd.keep[s] = true
		}
	}
	return fd
}

// add counts n samples of s's thread, stack and status.
func (fd *folder) add(s *reader.Sample, n uint64) error {
	stack := s.Stack
	if !fd.o.Labels {
		stack = stack[:fd.lf.Code(stack)]
	}
	if len(stack) == 0 || (len(fd.o.States) > 0 && !fd.keep[s.Status.State()]) {
		return nil
	}
	// The stack's memory, copied at once (stacktab.Key): each may be a
	// new record 65,536 frames deep, which encoding frame by frame made
	// the bulk of the work.
	key := fd.key[:0]
	if fd.o.ByGoroutine {
		key = binary.NativeEndian.AppendUint64(key, s.ThreadID)
	}
	key = append(key, stacktab.Key(stack)...)
	fd.key = key
	li, ok := fd.byKey[string(key)]
	if !ok {
		var err error
		if li, err = fd.newLine(s.ThreadID, stack); err != nil {
			return err
		}
	}
	fd.lines[li].Count += n
	return nil
}

// newLine adds the line of thread tid's stack, whose key is fd.key, and
// returns its index. The "goroutine N" frame of ByGoroutine goes under
// the stack's label frames, if any.
func (fd *folder) newLine(tid uint64, stack []uint32) (int32, error) {
	text := fd.text[:0]
	var g []byte
	if fd.o.ByGoroutine {
		g = append(g, "goroutine "...)
		g = strconv.AppendUint(g, tid, 10)
		g = append(g, ';')
	}
	// Measured before it is built: one stack's text can be gigabytes (a
	// long name in a deep stack), and a buffer grown by doubling towards
	// the limit leaves its old copies behind.
	need := len(g)
	for _, i := range stack {
		fr := fd.f.Frame(i)
		need += len(fr.File) + len(fr.Func) + 16
		if held := fd.held + len(fd.key) + need; held > fd.limit {
			return 0, fmt.Errorf("collapsed: %w", &limits.Error{Limit: limits.FoldedBytes, Max: int64(fd.limit), Value: int64(held)})
		}
	}
	text = slices.Grow(text, need)
	code := fd.lf.Code(stack)
	for j := len(stack) - 1; j >= code; j-- { // label frames, if kept
		text = appendFrame(text, fd.f.Frame(stack[j]), fd.o.Frames)
		text = append(text, ';')
	}
	text = append(text, g...)
	for j := code - 1; j >= 0; j-- {
		text = appendFrame(text, fd.f.Frame(stack[j]), fd.o.Frames)
		text = append(text, ';')
	}
	text = text[:len(text)-1] // the last ';'; the stack is not empty
	fd.text = text
	fd.held += len(fd.key) + len(text)
	li := int32(len(fd.lines))
	fd.byKey[string(fd.key)] = li
	fd.lines = append(fd.lines, Line{Stack: string(text)})
	return li, nil
}

// mergeLines sums the counts of lines with the same text.
func mergeLines(lines []Line) []Line {
	slices.SortFunc(lines, func(a, b Line) int { return strings.Compare(a.Stack, b.Stack) })
	out := lines[:0]
	for _, l := range lines {
		if n := len(out); n > 0 && out[n-1].Stack == l.Stack {
			out[n-1].Count += l.Count
			continue
		}
		out = append(out, l)
	}
	return out
}

// sortLines orders lines by count (largest first), then by text.
func sortLines(lines []Line) []Line {
	slices.SortStableFunc(lines, func(a, b Line) int { return cmp.Compare(b.Count, a.Count) })
	return lines
}

// Write writes f's folded stacks to w, as Lines finds them with o.
// Nothing is written if f is invalid.
func Write(w io.Writer, f *reader.File, o Options) error {
	lines, err := Lines(f, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l.Stack)
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatUint(l.Count, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
