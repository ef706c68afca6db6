package spx

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxValue is the largest metric value a report may hold: the UI parses
// values as float64, which is exact up to 2^53 (about 104 days in ns).
const MaxValue = 1 << 53

// ErrTooLong reports a metric value beyond MaxValue.
var ErrTooLong = errors.New("spx: metric value exceeds 2^53 (float64 precision of the UI)")

// report writes the KEY.txt.gz part of an SPX report: events as stacks
// change, then the function names. It is not safe for concurrent use.
type report struct {
	gz      *gzip.Writer
	bw      *bufio.Writer
	ct      bool
	names   []string
	index   map[string]uint32
	open    []uint32 // open calls, outermost first
	wt      uint64
	cpu     uint64
	base    [2]uint64 // values at the first event, subtracted from all
	started bool
	ends    uint64
	line    []byte
	err     error
	done    bool
}

// Summary describes a finished report; writeMeta needs it.
type Summary struct {
	WallTime  uint64   // final cumulative wt, ns
	CPUTime   uint64   // final cumulative ct, ns (0 without ct)
	Functions int      // number of [functions] lines
	Calls     uint64   // number of calls (= end events)
	Events    uint64   // number of event lines
	Metrics   []string // enabled metrics, canonical order
}

// newReport starts a report written gzip-compressed to w. With ct set the
// events carry CPU time after wall time.
func newReport(w io.Writer, ct bool) *report {
	gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // level is valid
	r := &report{gz: gz, ct: ct, index: make(map[string]uint32)}
	r.bw = bufio.NewWriterSize(gz, 64<<10)
	r.bw.WriteString("[events]\n")
	return r
}

// Func returns the function index of name, interning it. name is written
// as given: pass it through funcName or escape first. A name holding a
// newline would break the file and is escaped here.
func (r *report) Func(name string) uint32 {
	if i, ok := r.index[name]; ok {
		return i
	}
	i := uint32(len(r.names))
	r.index[name] = i
	clean := name
	for j := 0; j < len(name); j++ {
		if name[j] == '\n' || name[j] == '\r' {
			clean = escape(name)
			break
		}
	}
	r.names = append(r.names, clean)
	return i
}

// Move makes stack (function indices, outermost first) the current stack
// at cumulative wall time wt and CPU time ct (ns since the report's start):
// calls not shared with the previous stack are ended, innermost first, and
// the new ones started, outermost first. Values lower than the previous
// ones are raised to them, so metrics never decrease. Like SPX, the report
// subtracts the values of its first event from every event, so a report
// starts at 0 even when the first stacks are empty.
func (r *report) Move(stack []uint32, wt, ct uint64) error {
	n := 0
	for n < len(stack) && n < len(r.open) && stack[n] == r.open[n] {
		n++
	}
	return r.move(n, stack[n:], wt, ct)
}

// move is Move to the stack made of the first n open calls and tail, for
// a caller that knows them the same: the work follows the calls that end
// and begin, not the stack's depth.
func (r *report) move(n int, tail []uint32, wt, ct uint64) error {
	if r.err != nil {
		return r.err
	}
	if r.done {
		return errors.New("spx: report already closed")
	}
	if wt > MaxValue || ct > MaxValue {
		r.err = fmt.Errorf("%w: wt %d ns, ct %d ns", ErrTooLong, wt, ct)
		return r.err
	}
	n = min(n, len(r.open))
	if !r.started { // no event yet: this is the origin
		r.base = [2]uint64{wt, ct}
		r.started = n+len(tail) > 0
	}
	r.wt = max(r.wt, wt-min(wt, r.base[0]))
	r.cpu = max(r.cpu, ct-min(ct, r.base[1]))
	for len(r.open) > n {
		fn := r.open[len(r.open)-1]
		r.open = r.open[:len(r.open)-1]
		r.event(fn, false)
	}
	for _, fn := range tail {
		if int(fn) >= len(r.names) {
			r.err = fmt.Errorf("spx: function index %d not interned", fn)
			return r.err
		}
		r.open = append(r.open, fn)
		r.event(fn, true)
	}
	return r.err
}

func (r *report) event(fn uint32, start bool) {
	b := strconv.AppendUint(r.line[:0], uint64(fn), 10)
	if start {
		b = append(b, " 1 "...)
	} else {
		b = append(b, " 0 "...)
		r.ends++
	}
	b = strconv.AppendUint(b, r.wt, 10)
	if r.ct {
		b = append(b, ' ')
		b = strconv.AppendUint(b, r.cpu, 10)
	}
	b = append(b, '\n')
	r.line = b
	if _, err := r.bw.Write(b); err != nil && r.err == nil {
		r.err = err
	}
}

// Close ends every open call at the current time, writes the function
// names and finishes the gzip stream (it does not close the underlying
// writer).
func (r *report) Close() (Summary, error) {
	if r.done {
		return r.summary(), r.err
	}
	if r.err == nil {
		r.Move(nil, r.wt, r.cpu)
	}
	r.done = true
	if r.err == nil {
		r.bw.WriteString("[functions]\n")
		for _, n := range r.names {
			r.bw.WriteString(n)
			r.bw.WriteByte('\n')
		}
		if err := r.bw.Flush(); err != nil {
			r.err = fmt.Errorf("spx: writing events: %w", err)
		}
	}
	if err := r.gz.Close(); err != nil && r.err == nil {
		r.err = fmt.Errorf("spx: writing events: %w", err)
	}
	return r.summary(), r.err
}

func (r *report) summary() Summary {
	s := Summary{WallTime: r.wt, Functions: len(r.names), Calls: r.ends, Events: 2 * r.ends, Metrics: []string{"wt"}}
	if r.ct {
		s.CPUTime = r.cpu
		s.Metrics = append(s.Metrics, "ct")
	}
	return s
}
