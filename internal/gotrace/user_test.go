package gotrace_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// TestUser: a number given to a goroutine with SetUser at its first event
// comes back with each of its later transitions and from User, until it
// ends; then the reader no longer knows it. Goroutines given none carry 0.
func TestUser(t *testing.T) {
	rd, err := gotrace.NewReader(bytes.NewReader(go126Trace(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	given := map[uint64]uint32{} // live goroutines given a number
	seen := map[uint64]bool{}    // goroutines met, live or ended
	var carried, ended int
	var ev gotrace.Event
	for {
		if err := rd.Next(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != gotrace.Transition {
			if ev.User != 0 {
				t.Fatalf("%+v: a number on an event of another kind", ev)
			}
			continue
		}
		want := given[ev.G]
		if ev.User != want {
			t.Fatalf("%+v: number %d, want %d", ev, ev.User, want)
		}
		if want != 0 {
			carried++
		}
		if ev.To == gotrace.GoNotExist {
			delete(given, ev.G)
			ended++
			if rd.User(ev.G) != 0 || rd.SetUser(ev.G, 1) {
				t.Fatalf("goroutine %d ended, but the reader still knows it", ev.G)
			}
			continue
		}
		if !seen[ev.G] {
			seen[ev.G] = true
			if ev.G%2 == 0 { // half of them, so that 0 is seen too
				v := uint32(ev.G%1000 + 1)
				if !rd.SetUser(ev.G, v) || rd.User(ev.G) != v {
					t.Fatalf("SetUser(%d) on its first event: the reader does not know it", ev.G)
				}
				given[ev.G] = v
			}
		}
	}
	if carried == 0 || ended == 0 {
		t.Fatalf("%d transitions carried a number and %d goroutines ended: the trace shows nothing", carried, ended)
	}
	if rd.SetUser(1<<60, 1) {
		t.Fatal("SetUser of a goroutine never seen reported true")
	}
}

// TestClose: a Reader closed halfway through a trace gives its records
// back, knows no goroutine and reads no further.
func TestClose(t *testing.T) {
	rd, err := gotrace.NewReader(bytes.NewReader(go126Trace(t)))
	if err != nil {
		t.Fatal(err)
	}
	var ev gotrace.Event
	var g uint64
	for g == 0 {
		if err := rd.Next(&ev); err != nil {
			t.Fatalf("no transition before %v", err)
		}
		if ev.Kind == gotrace.Transition && ev.To != gotrace.GoNotExist {
			g = ev.G
		}
	}
	if !rd.SetUser(g, 7) {
		t.Fatalf("goroutine %d of the latest transition unknown", g)
	}
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
	if rd.User(g) != 0 || rd.SetUser(g, 8) {
		t.Fatalf("goroutine %d known after Close", g)
	}
	if err := rd.Next(&ev); err != io.EOF {
		t.Fatalf("Next after Close: %v, want io.EOF", err)
	}
}

// TestNextEventAsNext: NextEvent returns the events Next does, numbers
// given with SetUser included, and each holds until the next call.
func TestNextEventAsNext(t *testing.T) {
	data := go126Trace(t)
	byNext, err := gotrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer byNext.Close()
	byPtr, err := gotrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer byPtr.Close()
	var want gotrace.Event
	for n := 0; ; n++ {
		werr := byNext.Next(&want)
		got, gerr := byPtr.NextEvent()
		if errors.Is(werr, io.EOF) && errors.Is(gerr, io.EOF) {
			if n == 0 {
				t.Fatal("no event")
			}
			return
		}
		if werr != nil || gerr != nil {
			t.Fatalf("event %d: Next: %v, NextEvent: %v", n, werr, gerr)
		}
		if *got != want {
			t.Fatalf("event %d: NextEvent %+v, Next %+v", n, *got, want)
		}
		kept := *got
		if want.Kind == gotrace.Transition && want.User == 0 && want.G%3 == 0 {
			byNext.SetUser(want.G, uint32(n))
			byPtr.SetUser(want.G, uint32(n))
		}
		byPtr.Stack(want.Stack)
		if *got != kept {
			t.Fatalf("event %d changed before the next call: %+v, was %+v", n, *got, kept)
		}
	}
}
