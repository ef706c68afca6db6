package gotrace_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// elided is a system call Reader.Elide was offered.
type elided struct {
	g, stack uint64
	from, to gotrace.Time
}

// TestElide: the system calls Reader.Elide takes, and the starts
// Reader.Start takes, are left out and nothing else changes. The events
// are those read without them but for each call taken, its entry (Running
// to Syscall, at from, with its stack) and its return (the goroutine's
// next event, Syscall to Running at to), and for each start taken, its
// transition (Runnable to Running at its time). Both are offered only
// goroutines numbered by SetUser, with their numbers.
func TestElide(t *testing.T) {
	data := go126Trace(t)
	all, _, _ := elideEvents(t, data, nil)
	n := 0
	got, taken, started := elideEvents(t, data, func(elided) bool { n++; return n%3 != 0 })
	if len(taken) == 0 || len(started) == 0 {
		t.Fatalf("%d system calls and %d starts taken, want some of each", len(taken), len(started))
	}
	// want: all, less the two events of each call taken.
	drop := make(map[int]bool)
	for _, c := range taken {
		i := 0
		for ; i < len(all); i++ {
			e := all[i]
			if e.Kind == gotrace.Transition && e.G == c.g && e.Time == c.from && e.From == gotrace.GoRunning && e.To == gotrace.GoSyscall && e.Stack == c.stack && !drop[i] {
				break
			}
		}
		if i == len(all) {
			t.Fatalf("Elide took %+v, which is no system call's entry read without it", c)
		}
		j := i + 1
		for j < len(all) && !(all[j].Kind == gotrace.Transition && all[j].G == c.g) {
			j++
		}
		if j == len(all) || all[j].From != gotrace.GoSyscall || all[j].To != gotrace.GoRunning || all[j].Time != c.to {
			t.Fatalf("Elide took %+v, whose return read without it is not the goroutine's next event", c)
		}
		drop[i], drop[j] = true, true
	}
	for _, c := range started {
		i := 0
		for ; i < len(all); i++ {
			e := all[i]
			if e.Kind == gotrace.Transition && e.G == c.g && e.Time == c.from && e.From == gotrace.GoRunnable && e.To == gotrace.GoRunning && !drop[i] {
				break
			}
		}
		if i == len(all) {
			t.Fatalf("Start took %+v, which is no start read without it", c)
		}
		drop[i] = true
	}
	var want []string
	for i, e := range all {
		if !drop[i] {
			want = append(want, fmt.Sprintf("%+v", e))
		}
	}
	var have []string
	for _, e := range got {
		have = append(have, fmt.Sprintf("%+v", e))
	}
	for i := range min(len(want), len(have)) {
		if want[i] != have[i] {
			t.Fatalf("event %d of %d differs:\nwant %s\ngot  %s", i, len(want), want[i], have[i])
		}
	}
	if len(want) != len(have) {
		t.Fatalf("%d events, want %d", len(have), len(want))
	}
	t.Logf("%d system calls and %d starts taken of %d offered, %d events left out of %d", len(taken), len(started), n, len(all)-len(got), len(all))
}

// elideEvents reads a trace's events, numbering every goroutine it meets
// (SetUser); with take set, Elide and Start ask it, and the calls and
// starts it took are returned (a start's time in from and to).
func elideEvents(t *testing.T, data []byte, take func(elided) bool) ([]gotrace.Event, []elided, []elided) {
	t.Helper()
	rd, err := gotrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	users := make(map[uint64]uint32)
	var taken, started []elided
	if take != nil {
		rd.Start = func(id uint64, user uint32, at gotrace.Time) bool {
			if user == 0 || users[id] != user {
				t.Errorf("Start offered goroutine %d as %d, numbered %d", id, user, users[id])
			}
			c := elided{g: id, from: at, to: at}
			if !take(c) {
				return false
			}
			started = append(started, c)
			return true
		}
		rd.Elide = func(id uint64, user uint32, stack uint64, from, to gotrace.Time) bool {
			if user == 0 || users[id] != user {
				t.Errorf("Elide offered goroutine %d as %d, numbered %d", id, user, users[id])
			}
			if to <= from {
				t.Errorf("Elide offered a call from %d to %d", from, to)
			}
			c := elided{g: id, stack: stack, from: from, to: to}
			if !take(c) {
				return false
			}
			taken = append(taken, c)
			return true
		}
	}
	var out []gotrace.Event
	for {
		ev, err := rd.NextEvent()
		if errors.Is(err, io.EOF) {
			return out, taken, started
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == gotrace.Transition && ev.To != gotrace.GoNotExist && users[ev.G] == 0 {
			users[ev.G] = uint32(len(users) + 1)
			rd.SetUser(ev.G, users[ev.G])
		}
		out = append(out, *ev)
	}
}
