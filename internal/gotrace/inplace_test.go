package gotrace_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
)

// pipeOf returns a pipe that a goroutine fills with data as the runtime's
// trace writer would, then closes.
func pipeOf(data []byte) *handoff.Pipe {
	p := handoff.New(0)
	go func() { p.CloseWithError(handoff.Replay(p, data)) }()
	return p
}

// TestInPlaceSameAsStream: a trace handed over a generation at a time and
// parsed in place reads as the same trace read from a stream, event for
// event, on the recorded traces in Go 1.26's format and on a live one.
func TestInPlaceSameAsStream(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "go*.trace"))
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string][]byte{"live": record(t, 200*time.Millisecond)}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		traces[filepath.Base(path)] = data
	}
	ours := 0
	for name, data := range traces {
		if !bytes.HasPrefix(data, []byte("go 1.26 trace\x00\x00\x00")) {
			if _, err := gotrace.NewReader(pipeOf(data)); err != gotrace.ErrVersion {
				t.Errorf("%s: NewReader of a %.13q pipe: %v, want ErrVersion", name, data, err)
			}
			continue
		}
		ours++
		want, got := ourLines(t, data), readerLines(t, pipeOf(data))
		for i := range min(len(want), len(got)) {
			if want[i] != got[i] {
				t.Fatalf("%s: event %d of %d differs:\nstream:   %+v\nin place: %+v", name, i, len(want), want[i], got[i])
			}
		}
		if len(want) != len(got) {
			t.Fatalf("%s: %d events in place, %d from the stream", name, len(got), len(want))
		}
		t.Logf("%s: %d events alike", name, len(want))
	}
	if ours < 2 {
		t.Errorf("%d traces in Go 1.26's format", ours)
	}
}

// TestInPlaceErrors: a generation cut short, and the error that ends a
// pipe, end the trace with an error after the complete generations.
func TestInPlaceErrors(t *testing.T) {
	data := go126Trace(t)
	for _, cut := range []int{1, 3, 40} {
		p := handoff.New(0)
		go func() {
			handoff.Replay(p, data)
			p.Write([]byte{1, 5, 3}[:min(cut, 3)]) // a batch cut short
			p.Write(data[len(data)-cut-1 : len(data)-1])
			p.Close()
		}()
		rd, err := gotrace.NewReader(p)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var ev gotrace.Event
		n := 0
		for {
			err := rd.Next(&ev)
			if err == io.EOF {
				t.Fatalf("cut %d: EOF, want the cut's error", cut)
			}
			if err != nil {
				t.Logf("cut %d: %d events, then %v", cut, n, err)
				break
			}
			n++
		}
		if n < 100 {
			t.Fatalf("cut %d: %d events before the error", cut, n)
		}
	}
}

// FuzzGenerations reads arbitrary bytes after a Go 1.26 trace header,
// handed over through a pipe as the runtime's writer would write them and
// parsed in place: any error, never a panic or a hang, and stacks only of
// the generation's table. The seeds in testdata/fuzz/FuzzGenerations are
// FuzzReader's.
func FuzzGenerations(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := handoff.New(0)
		handoff.Replay(p, append([]byte("go 1.26 trace\x00\x00\x00"), data...))
		p.Close()
		rd, err := gotrace.NewReader(p)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var ev gotrace.Event
		for range 1 << 20 {
			if err := rd.Next(&ev); err != nil {
				return
			}
			if ev.Stack != 0 {
				rd.Stack(ev.Stack)
			}
			if ev.Kind >= gotrace.TaskBegin {
				rd.String(ev.Name)
			}
		}
		t.Fatal("a million events from a fuzz input")
	})
}
