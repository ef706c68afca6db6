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
	if got := w.interp(hs[0]); got != 7 {
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
