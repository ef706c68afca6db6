package sampler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestSourcesAgree folds one recorded trace of a busy program read by
// internal/gotrace and by golang.org/x/exp/trace (the reader of other
// trace versions): the samples must be the same, one for one, goroutine
// by goroutine (see byGoroutine).
func TestSourcesAgree(t *testing.T) {
	data := recordBusyTrace(t, 300*time.Millisecond)
	fold := func(src source) []string {
		sink := newMemSink()
		em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
		if err := newTraceBackend(em, src, time.Unix(1e9, 0)).consume(); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range byGoroutine(sink.all()) {
			out = append(out, fmt.Sprintf("%d %d %d %v", s.gid, s.ts, s.status, s.stack))
		}
		return out
	}
	ours, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSource(ours)
	if _, ok := ours.(*xsource); ok {
		t.Fatalf("this Go's trace is read by x/exp/trace, not by gotrace")
	}
	xrd, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, want := fold(ours), fold(newXSource(xrd))
	if len(want) < 1000 {
		t.Fatalf("only %d samples", len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("sample %d of %d:\ngotrace:     %s\nx/exp/trace: %s", i, len(want), got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d samples through gotrace, %d through x/exp/trace", len(got), len(want))
	}
}

// TestSourceFallsBack: a trace of another wire format than Go 1.26's (Go
// 1.25's, recorded in internal/gotrace/testdata) is read through
// golang.org/x/exp/trace and folds into samples; one that neither reader
// knows is an error, not a panic.
func TestSourceFallsBack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "internal", "gotrace", "testdata", "go1.25.14.trace"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSource(src)
	if _, ok := src.(*xsource); !ok {
		t.Fatalf("a Go 1.25 trace is read by %T, want x/exp/trace's", src)
	}
	sink := newMemSink()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	if err := newTraceBackend(em, src, time.Unix(1e9, 0)).consume(); err != nil {
		t.Fatal(err)
	}
	gs := map[uint64]bool{}
	for _, s := range sink.all() {
		gs[s.gid] = true
	}
	if len(sink.all()) < 100 || len(gs) < 10 {
		t.Fatalf("%d samples of %d goroutines from a Go 1.25 trace", len(sink.all()), len(gs))
	}
	t.Logf("%d samples of %d goroutines", len(sink.all()), len(gs))

	future := append([]byte("go 1.99 trace\x00\x00\x00"), data[16:]...)
	if _, err := newSource(bytes.NewReader(future)); err == nil {
		t.Error("a go 1.99 trace: no error")
	}
}
