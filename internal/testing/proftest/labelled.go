package proftest

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// LabelledInterval is the sampling interval of Labelled's file, in µs.
const LabelledInterval = 10_000

// Span is a run of one goroutine's samples in Labelled's file: Ticks
// samples, one interval apart, in State, with the code frames Stack
// (innermost first, synthetic frames included) and the label frames of
// Labels outermost (tachyon.LabelFrames).
type Span struct {
	G      uint64
	Labels []tachyon.Label
	State  tachyon.State
	Stack  []string // function names, innermost first; "[...]" are synthetic
	Ticks  int
}

// Frames returns the span's frames as a sampler writes them: code, then
// label frames outermost.
func (s Span) Frames() []tachyon.Frame {
	out := make([]tachyon.Frame, 0, len(s.Stack)+len(s.Labels))
	for i, fn := range s.Stack {
		if fn[0] == '[' {
			out = append(out, tachyon.Frame{Func: fn})
			continue
		}
		out = append(out, tachyon.Frame{File: "/src/app/" + fn + ".go", Func: fn, Line: int32(10 + i)})
	}
	return append(out, tachyon.LabelFrames(append([]tachyon.Label(nil), s.Labels...))...)
}

var (
	getCPU  = []tachyon.Label{{Key: "http.route", Value: "/api/cpu"}, {Key: "http.method", Value: "GET"}}
	getSlow = []tachyon.Label{{Key: "http.route", Value: "/api/slow"}, {Key: "http.method", Value: "GET"}}
	traced  = []tachyon.Label{{Key: tachyon.LabelTask, Value: "import"}, {Key: tachyon.LabelRegion, Value: "parse"}}
)

// LabelledSpans is what Labelled's file holds, goroutine by goroutine: a
// CPU-bound route (goroutine 1, unlabelled first while it reads the
// request), a route that waits (goroutine 2), a goroutine in a trace task
// and region (3), a runtime system goroutine without labels (4) and an
// unlabelled main goroutine (5); samples in every state: running,
// runnable ("[no CPU sample]" innermost), syscall, blocked with a wait
// reason innermost.
var LabelledSpans = []Span{
	{G: 1, State: tachyon.Blocked, Stack: []string{"[IO wait]", "internal/poll.(*FD).Read", "net/http.(*conn).serve"}, Ticks: 2},
	{G: 1, Labels: getCPU, State: tachyon.Running, Stack: []string{"main.hash", "main.cpuHandler", "net/http.(*conn).serve"}, Ticks: 30},
	{G: 1, Labels: getCPU, State: tachyon.Runnable, Stack: []string{"[no CPU sample]", "main.hash", "main.cpuHandler", "net/http.(*conn).serve"}, Ticks: 5},
	{G: 1, Labels: getCPU, State: tachyon.Syscall, Stack: []string{"syscall.write", "main.cpuHandler", "net/http.(*conn).serve"}, Ticks: 4},
	{G: 2, Labels: getSlow, State: tachyon.Blocked, Stack: []string{"[chan receive]", "main.callDownstream", "main.slowHandler", "net/http.(*conn).serve"}, Ticks: 50},
	{G: 2, Labels: getSlow, State: tachyon.Running, Stack: []string{"main.decode", "main.slowHandler", "net/http.(*conn).serve"}, Ticks: 3},
	{G: 3, Labels: traced, State: tachyon.Running, Stack: []string{"main.parse", "main.importer"}, Ticks: 10},
	{G: 3, Labels: traced, State: tachyon.Blocked, Stack: []string{"[sync.Mutex.Lock]", "sync.(*Mutex).Lock", "main.parse", "main.importer"}, Ticks: 6},
	{G: 4, State: tachyon.Blocked, Stack: []string{"[GC worker (idle)]", "runtime.gcBgMarkWorker", tachyon.RuntimeRoot}, Ticks: 20},
	{G: 4, State: tachyon.Running, Stack: []string{"runtime.scanobject", "runtime.gcBgMarkWorker", tachyon.RuntimeRoot}, Ticks: 5},
	{G: 5, State: tachyon.Blocked, Stack: []string{"[select]", "main.main"}, Ticks: 20},
}

// LabelledStart is the start time of Labelled's file.
const LabelledStart = 1_700_000_000_000_000

// LabelledBytes returns a zstd Tachyon file of LabelledSpans, each
// goroutine's spans one after the other from the start time on.
func LabelledBytes(tb testing.TB, spans []Span) []byte {
	tb.Helper()
	var buf seekbuf.Buffer
	w, err := writer.New(&buf, writer.Options{StartTime: LabelledStart, Interval: LabelledInterval, Compression: tachyon.CompressionZstd})
	if err != nil {
		tb.Fatal(err)
	}
	clock := map[uint64]uint64{}
	for _, sp := range spans {
		frames := sp.Frames()
		for range sp.Ticks {
			s := writer.Sample{ThreadID: sp.G, Timestamp: LabelledStart + clock[sp.G]*LabelledInterval,
				Status: tachyon.StatusOf(sp.State, false), Frames: frames}
			clock[sp.G]++
			if err := w.WriteSample(&s); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// Labelled returns Labelled's file (LabelledSpans) read from memory.
func Labelled(tb testing.TB) *reader.File {
	tb.Helper()
	f, err := reader.NewFileBytes(LabelledBytes(tb, LabelledSpans))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// LabelTotals returns the samples spans give each label ("key=value"),
// by state: the truth an export's per-label totals are checked against.
func LabelTotals(spans []Span) map[string][tachyon.NumStates]uint64 {
	out := map[string][tachyon.NumStates]uint64{}
	for _, sp := range spans {
		for _, l := range sp.Labels {
			c := out[l.String()]
			c[sp.State] += uint64(sp.Ticks)
			out[l.String()] = c
		}
	}
	return out
}
