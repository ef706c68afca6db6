package writer

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
)

// TestInterpsForgotten: a thread's interpreter id other than 0, kept
// beside its record, goes with Forget, for handles of Thread and
// NewThread alike; the threads of interpreter 0 put nothing there.
func TestInterpsForgotten(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := New(&m, Options{})
	f := w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	var hs []*Thread
	for id := range uint64(10) {
		hs = append(hs, w.Thread(id, 7), w.NewThread(id+100, 9), w.Thread(id+200, 0))
	}
	for _, h := range hs {
		if err := h.Write(10, 0, []uint32{f}); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(w.interps); got != 20 {
		t.Fatalf("%d interpreter ids kept, want 20", got)
	}
	if got := w.interp(&hs[0].thread); got != 7 {
		t.Fatalf("interpreter %d, want 7", got)
	}
	for _, h := range hs {
		h.Forget()
	}
	if len(w.interps) != 0 || len(w.threads) != 0 || len(w.others) != 0 {
		t.Fatalf("after Forget: %d interpreter ids, %d and %d threads by id", len(w.interps), len(w.threads), len(w.others))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInterpsAfterReset: the records a Reset Writer takes back are the
// next file's threads with the next file's interpreter ids: a thread of
// interpreter 0 made from a record of interpreter 7 is written as 0.
func TestInterpsAfterReset(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := New(&m, Options{})
	f := w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	for id := range uint64(4) {
		if err := w.Thread(id, 7).Write(10, 0, []uint32{f}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var m2 seekbuf.Buffer
	if err := w.Reset(&m2, Options{}); err != nil {
		t.Fatal(err)
	}
	f = w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	hs := []*Thread{w.Thread(1, 0), w.Thread(2, 3), w.NewThread(3, 0)}
	for _, h := range hs {
		if err := h.Write(20, 0, []uint32{f}); err != nil {
			t.Fatal(err)
		}
	}
	for h, want := range map[*Thread]uint32{hs[0]: 0, hs[1]: 3, hs[2]: 0} {
		if got := w.interp(&h.thread); got != want {
			t.Errorf("thread %d: interpreter %d, want %d", h.ID(), got, want)
		}
	}
	if w.Thread(1, 7) == hs[0] || w.Thread(2, 3) != hs[1] {
		t.Error("a thread was found under another interpreter's id")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
