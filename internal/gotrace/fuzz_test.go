package gotrace_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// FuzzReader reads arbitrary bytes after a Go 1.26 trace header: any
// error, never a panic or a hang, and stacks only of the generation's
// table, with every other system call and start folded in by Elide and
// Start (Elide reads the call's stack, as the sampler's does). The seeds
// in testdata/fuzz/FuzzReader are small real traces and their cuts.
func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := gotrace.NewReader(bytes.NewReader(append([]byte("go 1.26 trace\x00\x00\x00"), data...)))
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		calls, users := 0, uint32(0)
		rd.Elide = func(_ uint64, _ uint32, stack uint64, _, _ gotrace.Time) bool {
			if stack != 0 {
				rd.Stack(stack)
			}
			calls++
			return calls%2 == 0
		}
		rd.Start = func(uint64, uint32, gotrace.Time) bool {
			calls++
			return calls%2 == 0
		}
		var ev gotrace.Event
		for range 1 << 20 {
			err := rd.Next(&ev)
			if err == io.EOF || err != nil {
				return
			}
			if ev.Kind == gotrace.Transition && ev.User == 0 {
				users++
				rd.SetUser(ev.G, users)
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
