package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/gotachyon/profiler/tachyon"
)

// Stack is a sample's frames, innermost first, written as an array of
// [file, function, line] arrays.
type Stack []tachyon.Frame

// MarshalJSON writes the frames as [file, function, line] arrays.
func (st Stack) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for k, f := range st {
		if k > 0 {
			b = append(b, ',')
		}
		fb, err := marshalFrame(f)
		if err != nil {
			return nil, err
		}
		b = append(b, fb...)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads an array of [file, function, line] arrays, each a
// file and a function as strings (or null) and a line as a 32-bit integer
// (or null), token by token. It keeps the innermost tachyon.MaxReadDepth
// frames, the most a file holds, and checks the others without keeping
// them, so that its memory follows the stack a file can hold, not the
// line's length.
func (st *Stack) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*st = Stack{}
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("stack %v is not an array of frames", tok)
	}
	out := Stack{}
	var f tachyon.Frame
	for k := 0; dec.More(); k++ {
		if err := readFrame(dec, &f); err != nil {
			return fmt.Errorf("frame %d: %w", k, err)
		}
		if k < tachyon.MaxReadDepth {
			out = append(out, f)
		}
	}
	if _, err := dec.Token(); err != nil { // the stack's ']'
		return err
	}
	*st = out
	return nil
}

// readFrame reads one [file, function, line] array from dec into f.
func readFrame(dec *json.Decoder, f *tachyon.Frame) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("frame %v is not an array [file, function, line]", tok)
	}
	var vals [3]any
	n := 0
	for ; dec.More(); n++ {
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if n < len(vals) {
			vals[n] = v
		}
	}
	if _, err := dec.Token(); err != nil { // the frame's ']'
		return err
	}
	if n != len(vals) {
		return fmt.Errorf("frame has %d elements, want [file, function, line]", n)
	}
	return unmarshalFrame(vals, f)
}

// marshalFrame writes f as [file, function, line], without escaping HTML.
func marshalFrame(f tachyon.Frame) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode([3]any{f.File, f.Func, f.Line}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// unmarshalFrame reads [file, function, line], decoded, into f.
func unmarshalFrame(r [3]any, f *tachyon.Frame) error {
	var ok bool
	if f.File, ok = stringOrNull(r[0]); !ok {
		return fmt.Errorf("file %v is not a string", r[0])
	}
	if f.Func, ok = stringOrNull(r[1]); !ok {
		return fmt.Errorf("function %v is not a string", r[1])
	}
	switch v := r[2].(type) {
	case nil:
		f.Line = 0
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 32)
		if err != nil {
			return fmt.Errorf("line %s is not a 32-bit integer", v)
		}
		f.Line = int32(n)
	default:
		return fmt.Errorf("line %v is not a number", v)
	}
	return nil
}

// stringOrNull returns v as a string, "" for null, and whether it was
// either.
func stringOrNull(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}

// Sample is one decoded sample line; the field order is the schema's key
// order.
type Sample struct {
	ThreadID      uint64         `json:"thread_id"`
	InterpreterID uint32         `json:"interpreter_id"`
	TimestampUS   uint64         `json:"timestamp_us"`
	Status        tachyon.Status `json:"status"`
	Stack         Stack          `json:"stack"`
}

// Equal reports whether s and o are the same sample: the same fields and
// the same frames in the same order.
func (s Sample) Equal(o Sample) bool {
	return s.ThreadID == o.ThreadID && s.InterpreterID == o.InterpreterID &&
		s.TimestampUS == o.TimestampUS && s.Status == o.Status &&
		slices.Equal(s.Stack, o.Stack)
}

// Meta is the first line of an encoder input file.
type Meta struct {
	StartTimeUS uint64 `json:"start_time_us"`
	IntervalUS  uint64 `json:"interval_us"`
}

// Encoder writes sample lines: compact JSON, keys in schema order, no HTML
// escaping.
type Encoder struct{ enc *json.Encoder }

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	return &Encoder{enc: e}
}

// Encode writes s as one line.
func (e *Encoder) Encode(s *Sample) error {
	if s.Stack == nil {
		s.Stack = Stack{}
	}
	return e.enc.Encode(s)
}

// maxLine is the longest line Input reads.
const maxLine = 256 << 20

// Input reads an encoder input stream: the meta line, then samples.
type Input struct {
	Meta Meta
	sc   *bufio.Scanner
	line int
}

// NewInput reads the meta line of r.
func NewInput(r io.Reader) (*Input, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	in := &Input{sc: sc}
	var first struct {
		Meta *Meta `json:"meta"`
	}
	b, err := in.next()
	if err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("line 1: missing meta line")
		}
		return nil, err
	}
	if err := json.Unmarshal(b, &first); err != nil {
		return nil, fmt.Errorf("line %d: first line must be {\"meta\": {...}}: %w", in.line, err)
	}
	if first.Meta == nil {
		return nil, fmt.Errorf("line %d: first line must be {\"meta\": {...}}, and has no \"meta\" key", in.line)
	}
	in.Meta = *first.Meta
	return in, nil
}

func (in *Input) next() ([]byte, error) {
	for in.sc.Scan() {
		in.line++
		b := bytes.TrimSpace(in.sc.Bytes())
		if len(b) > 0 {
			return b, nil
		}
	}
	if err := in.sc.Err(); err != nil {
		// A line too long for the scanner, or the reader's error: the
		// line it was reading.
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d MiB, the most a line may be: %w", in.line+1, maxLine>>20, err)
		}
		return nil, fmt.Errorf("line %d: %w", in.line+1, err)
	}
	return nil, io.EOF
}

// Line returns the line number of the line read last.
func (in *Input) Line() int { return in.line }

// Next reads the next sample into s; it returns io.EOF at the end.
func (in *Input) Next(s *Sample) error {
	b, err := in.next()
	if err != nil {
		return err
	}
	*s = Sample{}
	if err := json.Unmarshal(b, s); err != nil {
		return fmt.Errorf("line %d: %w", in.line, err)
	}
	return nil
}
