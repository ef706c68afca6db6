// Package collapsed aggregates a profile into folded stacks, the text
// format of flamegraph.pl: one line per distinct stack, frames from the
// outermost to the innermost joined with ';', a space, and the number of
// samples.
package collapsed

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gotachyon/profiler/reader"
)

// Line is one folded stack and its sample count.
type Line struct {
	Stack string
	Count uint64
}

// Lines aggregates every sample of f with a non-empty stack. Frames are
// written as file:function:line, threads are merged, and lines are sorted by
// count (largest first), then by stack text in byte order. Any error of the
// reader is returned, and then no lines.
func Lines(f *reader.File) ([]Line, error) {
	counts := make(map[string]uint64)
	keys := make(map[string]string) // stack of frame indices -> text
	var key []byte
	var sb strings.Builder
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		if len(s.Stack) == 0 {
			continue
		}
		key = key[:0]
		for _, i := range s.Stack {
			key = strconv.AppendUint(key, uint64(i), 36)
			key = append(key, ',')
		}
		text, ok := keys[string(key)]
		if !ok {
			sb.Reset()
			for j := len(s.Stack) - 1; j >= 0; j-- {
				fr := f.Frame(s.Stack[j])
				sb.WriteString(fr.File)
				sb.WriteByte(':')
				sb.WriteString(fr.Func)
				sb.WriteByte(':')
				sb.WriteString(strconv.FormatInt(int64(fr.Line), 10))
				if j > 0 {
					sb.WriteByte(';')
				}
			}
			text = sb.String()
			keys[string(key)] = text
		}
		counts[text]++
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	lines := make([]Line, 0, len(counts))
	for s, n := range counts {
		lines = append(lines, Line{s, n})
	}
	slices.SortFunc(lines, func(a, b Line) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Stack, b.Stack)
	})
	return lines, nil
}

// Write writes f's folded stacks to w. Nothing is written if f is invalid.
func Write(w io.Writer, f *reader.File) error {
	lines, err := Lines(f)
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
