package speedscope

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Schema is the $schema of a speedscope file.
const Schema = "https://www.speedscope.app/file-format-schema.json"

// MaxDepth is the deepest stack a speedscope profile holds. speedscope
// builds its call tree recursively, and in Chromium it fails to open a
// file with a stack of about 3,500 frames or more ("Something went
// wrong": RangeError, maximum call stack size exceeded). The reader
// accepts stacks as deep as tachyon.MaxReadDepth; one deeper than
// MaxDepth keeps its innermost MaxDepth-1 frames under the root frame
// ElidedFrame.
const MaxDepth = 1024

// ElidedFrame is the name of the root frame of a stack cut to MaxDepth.
const ElidedFrame = "[outer frames left out]"

// EmptyProfile names the one, empty, profile of a file without samples.
const EmptyProfile = "no samples"

// DefaultTop is the number of goroutines that get a profile of their own
// when Options.Top is 0.
const DefaultTop = 20

// Options configure Write. The zero value keeps the DefaultTop busiest
// goroutines.
type Options struct {
	// Top is how many of the busiest goroutines get a profile of their
	// own; 0 means DefaultTop and a negative value all of them.
	Top int
	// Name is the name of the profile group shown by speedscope; empty
	// means "tachyon profile".
	Name string
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the export's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames). Past it the export fails
	// with a *limits.Error (limits.StackFrames).
	MaxStackFrames int
	// Labels keeps the label frames (tachyon.LabelOf) at the root of their
	// samples' stacks, the smallest key outermost, named "key=value" with
	// the file "<labels>"; without it they are left out, and a labelled
	// file's profiles are those of the same samples without labels.
	Labels bool
}

// run is a run of equal consecutive stacks of one goroutine.
type run struct {
	stack uint32 // index into agg.stacks
	n     uint32 // samples
}

// goroutine is what one thread id contributed.
type goroutine struct {
	id      uint64
	first   uint64 // timestamp of the first sample
	samples uint64
	onCPU   uint64
	waiting uint64 // runnable samples: wanting a CPU
	runtime bool   // a runtime system goroutine: a sample under tachyon.RuntimeRoot
	runs    []run
}

type agg struct {
	stacks stacktab.Table // distinct stacks, innermost first
	deep   stacktab.Deep  // deep ones, by the frames a record changed
	gs     []*goroutine
}

// maxRun is the most samples one entry of a goroutine's runs holds.
const maxRun = 1 << 31

// aggregate reads f run by run (reader.Samples.NextRun): a parked
// goroutine's thousands of samples are one step, so the work follows the
// file's records, not its samples.
func aggregate(f *reader.File, maxFrames int, labels bool) (*agg, error) {
	a := &agg{}
	a.stacks.Frames.Limit = maxFrames
	lf := labelframes.Of(f)
	rtRoot := make([]bool, len(f.FrameRefs()))
	for i := range rtRoot {
		rtRoot[i] = tachyon.IsRuntimeRoot(f.Frame(uint32(i)))
	}
	byID := map[uint64]*goroutine{}
	var last *goroutine
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		s := it.Sample()
		stack := s.Stack
		code := lf.Code(stack)
		if !labels {
			stack = stack[:code]
		}
		th := stacktab.Thread{ID: s.ThreadID, Interp: s.InterpreterID}
		id, err := a.deep.ID(&a.stacks, th, stack, s.Kept-(len(s.Stack)-len(stack)))
		if err != nil {
			return nil, fmt.Errorf("speedscope: %w", err)
		}
		if last == nil || last.id != s.ThreadID {
			last = a.goroutine(byID, s)
		}
		last.add(id, it.Run().Count, s.Status.State())
		last.runtime = last.runtime || code > 0 && rtRoot[s.Stack[code-1]]
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(a.gs, busiestFirst)
	return a, nil
}

// busiestFirst orders goroutines as the profiles are: the program's
// before the runtime's system goroutines, then by samples on a CPU, then
// waiting for one (runnable: in a wall profile of a busy machine most of
// a working goroutine's samples may be), then by samples, then by id. A
// goroutine parked all along, however long, comes after every goroutine
// that ran or wanted to.
func busiestFirst(x, y *goroutine) int {
	return cmp.Or(cmp.Compare(b2i(x.runtime), b2i(y.runtime)), cmp.Compare(y.onCPU, x.onCPU),
		cmp.Compare(y.waiting, x.waiting), cmp.Compare(y.samples, x.samples), cmp.Compare(x.id, y.id))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// goroutine returns the goroutine of s's thread, adding it when new.
func (a *agg) goroutine(byID map[uint64]*goroutine, s *reader.Sample) *goroutine {
	g := byID[s.ThreadID]
	if g == nil {
		g = &goroutine{id: s.ThreadID, first: s.Timestamp}
		byID[s.ThreadID] = g
		a.gs = append(a.gs, g)
	}
	return g
}

// add counts n samples of stack id, extending the last run when it has
// the same stack; a run holds at most maxRun samples.
func (g *goroutine) add(id uint32, n uint64, st tachyon.State) {
	g.samples += n
	switch {
	case st.OnCPU():
		g.onCPU += n
	case st == tachyon.Runnable:
		g.waiting += n
	}
	if k := len(g.runs); k > 0 && g.runs[k-1].stack == id {
		r := &g.runs[k-1]
		more := min(n, maxRun-uint64(r.n))
		r.n += uint32(more)
		n -= more
	}
	for n > 0 {
		more := min(n, maxRun)
		g.runs = append(g.runs, run{id, uint32(more)})
		n -= more
	}
}

// frame is one entry of speedscope's shared frame table.
type frame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int32  `json:"line,omitempty"`
}

// Write converts f and writes the speedscope JSON file to w. It returns
// the reader's error, if any, before writing anything.
func Write(w io.Writer, f *reader.File, o Options) error {
	a, err := aggregate(f, o.MaxStackFrames, o.Labels)
	if err != nil {
		return err
	}
	top := o.Top
	if top == 0 {
		top = DefaultTop
	}
	if top < 0 || top > len(a.gs) {
		top = len(a.gs)
	}
	if len(a.gs)-top == 1 { // a lone "other" goroutine keeps its name
		top++
	}
	name := o.Name
	if name == "" {
		name = "tachyon profile"
	}
	unit, weight := "microseconds", f.Header.Interval
	if weight == 0 {
		unit, weight = "none", 1
	}
	elided := -1 // index of ElidedFrame in the frame table, if a stack needs it
	for i := range a.stacks.Len() {
		if len(a.stacks.Stack(uint32(i))) > MaxDepth {
			elided = len(f.FrameRefs())
			break
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := writeHead(bw, f, name, elided >= 0); err != nil {
		return err
	}
	bw.WriteString(`,"profiles":[`)
	p := printer{w: bw, a: a, stackJSON: make([][]byte, a.stacks.Len()), unit: unit, weight: weight, elided: elided}
	for i, g := range a.gs[:top] {
		if i > 0 {
			bw.WriteByte(',')
		}
		p.profile("goroutine "+strconv.FormatUint(g.id, 10), g.first-min(g.first, f.Header.StartTime), a.gs[i:i+1])
	}
	if rest := a.gs[top:]; len(rest) > 0 {
		if top > 0 {
			bw.WriteByte(',')
		}
		slices.SortFunc(rest, func(x, y *goroutine) int { return cmp.Compare(x.id, y.id) })
		p.profile(fmt.Sprintf("other goroutines (%d)", len(rest)), 0, rest)
	}
	if len(a.gs) == 0 {
		// speedscope reads a file without profiles as no file: it
		// shows its welcome page, naming neither the file nor why.
		p.profile(EmptyProfile, 0, nil)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// writeHead writes the file's opening: the schema, the names and the shared
// frame table, frame by frame (a file may hold millions), leaving the
// object open for "profiles".
// With elided, ElidedFrame follows the file's frames.
func writeHead(bw *bufio.Writer, f *reader.File, name string, elided bool) error {
	head, err := json.Marshal(struct {
		Schema   string `json:"$schema"`
		Exporter string `json:"exporter"`
		Name     string `json:"name"`
		Active   int    `json:"activeProfileIndex"`
	}{Schema, "gotachyon", name, 0})
	if err != nil {
		return fmt.Errorf("speedscope: %w", err)
	}
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"shared":{"frames":[`)
	for i := range f.FrameRefs() {
		fr := f.Frame(uint32(i))
		b, err := json.Marshal(frame{fr.Func, fr.File, fr.Line})
		if err != nil {
			return fmt.Errorf("speedscope: %w", err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(b)
	}
	if elided {
		if len(f.FrameRefs()) > 0 {
			bw.WriteByte(',')
		}
		b, _ := json.Marshal(frame{Name: ElidedFrame})
		bw.Write(b)
	}
	bw.WriteString("]}")
	return nil
}

// printer writes sampled profiles.
type printer struct {
	w         *bufio.Writer
	a         *agg
	stackJSON [][]byte // rendered stacks, outermost first, by stack id
	unit      string
	weight    uint64
	buf       []byte
	elided    int // frame index of ElidedFrame, or -1
}

func (p *printer) stack(id uint32) []byte {
	if b := p.stackJSON[id]; b != nil {
		return b
	}
	st := p.a.stacks.Stack(id)
	b := make([]byte, 0, 2+6*min(len(st), MaxDepth))
	b = append(b, '[')
	if len(st) > MaxDepth {
		b = strconv.AppendUint(b, uint64(p.elided), 10)
		b = append(b, ',')
		st = st[:MaxDepth-1] // innermost first
	}
	for j := len(st) - 1; j >= 0; j-- {
		b = strconv.AppendUint(b, uint64(st[j]), 10)
		if j > 0 {
			b = append(b, ',')
		}
	}
	b = append(b, ']')
	p.stackJSON[id] = b
	return b
}

// profile writes one sampled profile holding the runs of gs, starting at
// start (microseconds from the file's start time).
func (p *printer) profile(name string, start uint64, gs []*goroutine) {
	var total uint64
	for _, g := range gs {
		total += g.samples * p.weight
	}
	b := p.buf[:0]
	b = append(b, `{"type":"sampled","name":`...)
	nameJSON, _ := json.Marshal(name)
	b = append(b, nameJSON...)
	b = append(b, `,"unit":"`...)
	b = append(b, p.unit...)
	b = append(b, `","startValue":`...)
	b = strconv.AppendUint(b, start, 10)
	b = append(b, `,"endValue":`...)
	b = strconv.AppendUint(b, start+total, 10)
	b = append(b, `,"samples":[`...)
	p.w.Write(b)
	first := true
	for _, g := range gs {
		for _, r := range g.runs {
			if !first {
				p.w.WriteByte(',')
			}
			first = false
			p.w.Write(p.stack(r.stack))
		}
	}
	p.w.WriteString(`],"weights":[`)
	first = true
	for _, g := range gs {
		for _, r := range g.runs {
			b = b[:0]
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendUint(b, uint64(r.n)*p.weight, 10)
			p.w.Write(b)
		}
	}
	p.w.WriteString("]}")
	p.buf = b
}
