package sampler

import (
	"bufio"
	"io"
	"os"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
)

// BenchmarkHandoff pushes a recorded trace from a writer goroutine, which
// writes it as the runtime's trace writer does (a write per batch, from a
// buffer it reuses), through the hand-off to the parser: through an
// io.Pipe and a bufio.Reader (the hand-off before issue 31: a goroutine
// switch a write, and a copy into the reader's buffer, then into the
// generation's) and through handoff.Pipe (one copy, one wake-up a
// generation), side by side. In /parse the parser reads the trace's events
// with gotrace (ns/event); in /move it only takes the bytes (the io.Pipe's
// into a buffer, as gotrace copies each batch: ns/write). It reports MB/s,
// allocations, the process's CPU time (cpu-ns: the writer's and the
// reader's, which the io.Pipe runs one after the other and handoff.Pipe
// side by side, so that the elapsed time favours it), the goroutine
// switches the scheduler counted (gswitch/op) and the OS threads' context
// switches (ctxsw/op). TRACE_BENCH=FILE pushes a saved trace instead (such
// as one bench/service -savetrace wrote).
func BenchmarkHandoff(b *testing.B) {
	var data []byte
	if path := os.Getenv("TRACE_BENCH"); path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		data = recordBusyTrace(b, 1200*time.Millisecond)
	}
	var writes counter
	handoff.Replay(&writes, data)
	for _, via := range []string{"io.Pipe", "handoff"} {
		for _, work := range []string{"parse", "move"} {
			b.Run(via+"/"+work, func(b *testing.B) {
				benchHandoff(b, data, via, work, writes.n)
			})
		}
	}
}

func benchHandoff(b *testing.B, data []byte, via, work string, writes int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	if work == "move" {
		// One pipe throughout, as a live trace has: the trace again and
		// again, after one header.
		writes *= b.N
		data = data[16:]
	}
	events := 0
	var w io.WriteCloser
	var r io.Reader
	open := func() {
		if via == "io.Pipe" {
			pr, pw := io.Pipe()
			r, w = pr, pw
		} else {
			p := handoff.New(pipeMaxBytes)
			r, w = p, p
		}
	}
	sw0, cs0, cpu0 := gSwitches(), ctxSwitches(), rusage()
	b.ResetTimer()
	if work == "move" {
		open()
		go func() {
			var to io.Writer = w
			if p, ok := w.(*handoff.Pipe); ok {
				// A writer from memory outruns the reader; the runtime's
				// writes come at the trace's pace, which a reader keeps up
				// with.
				to = keepUp{p}
			}
			w.Write([]byte("go 1.26 trace\x00\x00\x00"))
			for range b.N {
				handoff.Replay(to, data)
			}
			w.Close()
		}()
		var err error
		if via == "io.Pipe" {
			_, err = io.Copy(&copyInto{buf: make([]byte, 0, 4<<20)}, bufio.NewReaderSize(r, 64<<10))
		} else {
			err = takeGenerations(r.(*handoff.Pipe))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for range b.N {
		if work == "move" {
			break
		}
		open()
		go func() {
			handoff.Replay(w, data)
			w.Close()
		}()
		var err error
		if events, err = readEvents(r); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(rusage() - cpu0)
	ops := float64(b.N)
	if work == "parse" {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops/float64(events), "ns/event")
		b.ReportMetric(cpu/ops/float64(events), "cpu-ns/event")
	} else {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(writes), "ns/write")
		b.ReportMetric(cpu/float64(writes), "cpu-ns/write")
	}
	b.ReportMetric(float64(gSwitches()-sw0)/ops, "gswitch/op")
	b.ReportMetric(float64(ctxSwitches()-cs0)/ops, "ctxsw/op")
}

// copyInto appends each write to its buffer, as gotrace appends each batch
// to its generation's, starting again at each end of generation.
type copyInto struct{ buf []byte }

func (c *copyInto) Write(b []byte) (int, error) {
	if _, end, _ := gotrace.Batch(b); end || len(c.buf)+len(b) > cap(c.buf) {
		c.buf = c.buf[:0]
	}
	c.buf = append(c.buf, b...)
	return len(b), nil
}

// keepUp writes into a pipe once fewer than two generations wait for its
// reader.
type keepUp struct{ p *handoff.Pipe }

func (k keepUp) Write(b []byte) (int, error) {
	if err := k.p.Wait(2); err != nil {
		return 0, err
	}
	return k.p.Write(b)
}

// counter counts writes.
type counter struct{ n int }

func (c *counter) Write(b []byte) (int, error) { c.n++; return len(b), nil }

// takeGenerations takes p's header and generations to the trace's end.
func takeGenerations(p *handoff.Pipe) error {
	if _, err := p.Header(); err != nil {
		return err
	}
	var g []byte
	for {
		var err error
		if g, err = p.NextGeneration(g); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// readEvents reads r's trace to its end with the backend's source and
// returns its number of events.
func readEvents(r io.Reader) (int, error) {
	src, err := newSource(r)
	if err != nil {
		return 0, err
	}
	for n := 0; ; n++ {
		if _, err := src.NextEvent(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
	}
}

// gSwitches returns the goroutine switches the scheduler has counted: it
// records one in schedTrackingPeriod in /sched/latencies:seconds.
func gSwitches() uint64 {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n * schedTrackingPeriod
}

// ctxSwitches returns the process's context switches, voluntary and not.
func ctxSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return int64(ru.Nvcsw) + int64(ru.Nivcsw)
}
