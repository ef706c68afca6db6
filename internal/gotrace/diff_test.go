package gotrace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	rtrace "runtime/trace"
	"sync"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/tracelabel"
)

// The differential test: gotrace must give, event for event, what
// golang.org/x/exp/trace gives for goroutine transitions, CPU samples and
// generations, with the same times and stacks, on live traces of the Go
// running the test (CI runs it under each supported release) and on the
// traces recorded by each release in testdata (recorded_test.go).

// record traces d of a busy program with the CPU profiler on: parked
// goroutines, a loopback HTTP client and server (system calls, network
// waits, a goroutine per connection), goroutine churn, coroutine switches
// (iter.Pull) and a goroutine that computes, yields and makes system
// calls.
func record(t testing.TB, d time.Duration) []byte {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	for i := range 200 {
		go func() {
			select {
			case <-stop:
			case <-time.After(time.Hour + time.Duration(i)):
			}
		}()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"ok":true}`)
	}))
	defer srv.Close()
	loop := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					f()
					time.Sleep(20 * time.Microsecond) // coverage, not volume
				}
			}
		}()
	}
	loop(func() {
		if resp, err := http.Get(srv.URL); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	loop(func() {
		var cw sync.WaitGroup
		for range 50 {
			cw.Go(func() { time.Sleep(time.Microsecond) })
		}
		cw.Wait()
	})
	loop(func() {
		next, done := iter.Pull(func(yield func(int) bool) {
			for i := range 100 {
				if !yield(i) {
					return
				}
			}
		})
		for _, ok := next(); ok; _, ok = next() {
		}
		done()
	})
	loop(func() {
		x := 0
		for i := range 100000 {
			x += i * i
		}
		_ = x
		os.Getpid()
		runtime.Gosched()
	})
	loop(func() {
		ctx, task := rtrace.NewTask(context.Background(), "job")
		rtrace.WithRegion(ctx, "outer", func() {
			r := rtrace.StartRegion(ctx, "inner")
			rtrace.Log(ctx, tracelabel.Category, string(tracelabel.Append(nil, "k", "v")))
			rtrace.Log(ctx, "other", "not returned")
			r.End()
			done := make(chan struct{})
			go func() {
				defer close(done)
				rtrace.WithRegion(ctx, "child", func() { rtrace.Log(ctx, tracelabel.Category, "") })
			}()
			<-done
		})
		sub, subTask := rtrace.NewTask(ctx, "sub")
		rtrace.WithRegion(sub, "in-sub", func() {})
		subTask.End()
		task.End()
	})
	time.Sleep(20 * time.Millisecond)
	return testutil.Trace(t, d)
}

// line is one event as both readers must give it.
type line struct {
	kind     string
	time     int64
	g        uint64
	from, to string
	reason   string
	stack    string
	clock    string
	// creations, tasks, regions, logs
	creator, task, parent uint64
	name                  string
	creatorStack          string // a creation's: the creator's stack
}

var states = [...]string{"Undetermined", "NotExist", "Runnable", "Running", "Waiting", "Syscall"}

func xState(s xtrace.GoState) string {
	switch s {
	case xtrace.GoUndetermined:
		return states[0]
	case xtrace.GoNotExist:
		return states[1]
	case xtrace.GoRunnable:
		return states[2]
	case xtrace.GoRunning:
		return states[3]
	case xtrace.GoWaiting:
		return states[4]
	case xtrace.GoSyscall:
		return states[5]
	}
	return "?"
}

func xStack(s xtrace.Stack, seen map[xtrace.Stack]string) string {
	if str, ok := seen[s]; ok {
		return str
	}
	var b bytes.Buffer
	for f := range s.Frames() {
		fmt.Fprintf(&b, "%x %s %s:%d;", f.PC, f.Func, f.File, f.Line)
	}
	seen[s] = b.String()
	return b.String()
}

// xLines reads data with golang.org/x/exp/trace.
func xLines(t testing.TB, data []byte) []line {
	rd, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	seen := make(map[xtrace.Stack]string)
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind() {
		case xtrace.EventSync:
			l := line{kind: "sync", time: int64(ev.Time())}
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				l.clock = fmt.Sprint(int64(cs.Trace), cs.Wall.UnixNano())
			}
			out = append(out, l)
		case xtrace.EventStackSample:
			out = append(out, line{kind: "sample", time: int64(ev.Time()), g: uint64(ev.Goroutine()), stack: xStack(ev.Stack(), seen)})
		case xtrace.EventStateTransition:
			tr := ev.StateTransition()
			if tr.Resource.Kind != xtrace.ResourceGoroutine {
				continue
			}
			from, to := tr.Goroutine()
			l := line{kind: "go", time: int64(ev.Time()), g: uint64(tr.Resource.Goroutine()),
				from: xState(from), to: xState(to), reason: tr.Reason, stack: xStack(tr.Stack, seen)}
			if from == xtrace.GoNotExist {
				l.creator = uint64(ev.Goroutine())
				l.creatorStack = xStack(ev.Stack(), seen)
			}
			out = append(out, l)
		case xtrace.EventTaskBegin, xtrace.EventTaskEnd:
			tk := ev.Task()
			l := line{kind: "taskend", time: int64(ev.Time()), g: uint64(ev.Goroutine()), task: uint64(tk.ID)}
			if ev.Kind() == xtrace.EventTaskBegin {
				l.kind, l.name = "taskbegin", tk.Type
				if tk.Parent != xtrace.NoTask {
					l.parent = uint64(tk.Parent)
				}
			}
			out = append(out, l)
		case xtrace.EventRegionBegin, xtrace.EventRegionEnd:
			rg := ev.Region()
			kind := map[xtrace.EventKind]string{xtrace.EventRegionBegin: "regionbegin", xtrace.EventRegionEnd: "regionend"}[ev.Kind()]
			out = append(out, line{kind: kind, time: int64(ev.Time()), g: uint64(ev.Goroutine()), task: uint64(rg.Task), name: rg.Type})
		case xtrace.EventLog:
			lg := ev.Log()
			if lg.Category == tracelabel.Category {
				out = append(out, line{kind: "log", time: int64(ev.Time()), g: uint64(ev.Goroutine()), task: uint64(lg.Task), name: lg.Message})
			}
		}
	}
}

// ourLines reads data with gotrace, set up by opts.
func ourLines(t testing.TB, data []byte, opts ...func(*gotrace.Reader)) []line {
	return readerLines(t, bytes.NewReader(data), opts...)
}

// readerLines reads the trace of r with gotrace, set up by opts.
func readerLines(t testing.TB, r io.Reader, opts ...func(*gotrace.Reader)) []line {
	rd, err := gotrace.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for _, o := range opts {
		o(rd)
	}
	seen := make(map[uint64]string) // this generation's
	stack := func(id uint64) string {
		if s, ok := seen[id]; ok {
			return s
		}
		var b bytes.Buffer
		for _, f := range rd.Stack(id) {
			fmt.Fprintf(&b, "%x %s %s:%d;", f.PC, f.Func, f.File, f.Line)
		}
		seen[id] = b.String()
		return b.String()
	}
	var out []line
	var ev gotrace.Event
	for {
		err := rd.Next(&ev)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case gotrace.Sync:
			clear(seen)
			l := line{kind: "sync", time: int64(ev.Time)}
			if c, ok := rd.Clock(); ok {
				l.clock = fmt.Sprint(int64(c.Trace), c.Wall)
			}
			out = append(out, l)
		case gotrace.Sample:
			out = append(out, line{kind: "sample", time: int64(ev.Time), g: ev.G, stack: stack(ev.Stack)})
		case gotrace.Transition:
			l := line{kind: "go", time: int64(ev.Time), g: ev.G,
				from: states[ev.From], to: states[ev.To], reason: rd.Reason(ev.Reason), stack: stack(ev.Stack)}
			if ev.From == gotrace.GoNotExist {
				l.creator = ev.Creator
				l.creatorStack = stack(ev.CreatorStack)
			}
			out = append(out, l)
		case gotrace.TaskBegin:
			out = append(out, line{kind: "taskbegin", time: int64(ev.Time), g: ev.G, task: ev.Task, parent: ev.Parent, name: rd.String(ev.Name)})
		case gotrace.TaskEnd:
			out = append(out, line{kind: "taskend", time: int64(ev.Time), g: ev.G, task: ev.Task})
		case gotrace.RegionBegin, gotrace.RegionEnd:
			kind := map[gotrace.Kind]string{gotrace.RegionBegin: "regionbegin", gotrace.RegionEnd: "regionend"}[ev.Kind]
			out = append(out, line{kind: kind, time: int64(ev.Time), g: ev.G, task: ev.Task, name: rd.String(ev.Name)})
		case gotrace.Log:
			out = append(out, line{kind: "log", time: int64(ev.Time), g: ev.G, task: ev.Task, name: rd.String(ev.Name)})
		}
	}
}

// covered fails t unless the trace showed every kind of goroutine
// transition the sampler reads, and CPU samples.
func covered(t *testing.T, lines []line) {
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l.kind+" "+l.from+">"+l.to] = true
	}
	for _, k := range []string{
		"go Undetermined>Waiting", "go Undetermined>Running", "go NotExist>Runnable",
		"go Runnable>Running", "go Running>Runnable", "go Running>Waiting", "go Waiting>Runnable",
		"go Running>Syscall", "go Syscall>Running", "go Running>NotExist", "sample >", "sync >",
		"taskbegin >", "taskend >", "regionbegin >", "regionend >", "log >",
	} {
		if !seen[k] {
			t.Errorf("the trace has no %q", k)
		}
	}
}

func TestSameAsXTrace(t *testing.T) {
	for round := range 2 {
		data := record(t, 200*time.Millisecond)
		if !bytes.HasPrefix(data, []byte("go 1.26 trace\x00\x00\x00")) {
			// A Go release with another wire format: gotrace must refuse
			// it for x/exp/trace, which must read it all.
			if _, err := gotrace.NewReader(bytes.NewReader(data)); !errors.Is(err, gotrace.ErrVersion) {
				t.Fatalf("NewReader of %s's %.13q trace: %v, want ErrVersion", runtime.Version(), data, err)
			}
			covered(t, xLines(t, data))
			t.Logf("round %d: %s writes %.13q: refused with ErrVersion, read by x/exp/trace", round, runtime.Version(), data)
			continue
		}
		want, got := xLines(t, data), ourLines(t, data)
		n := min(len(want), len(got))
		for i := range n {
			if want[i] != got[i] {
				lo := max(0, i-3)
				t.Fatalf("round %d: event %d of %d differs:\nx/exp/trace: %+v\ngotrace:     %+v\nbefore:\n%+v\n%+v", round, i, len(want), want[i], got[i], want[lo:i], got[lo:i])
			}
		}
		if len(want) != len(got) {
			t.Fatalf("round %d: %d events, x/exp/trace has %d", round, len(got), len(want))
		}
		covered(t, want)
		t.Logf("round %d: %d events and %d bytes alike", round, len(want), len(data))
	}
}
