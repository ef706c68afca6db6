package auto

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/upload"
)

// fakeProfile has the segment hook profiler.Profile gets.
type fakeProfile struct{ fn func(string, bool) }

func (p *fakeProfile) OnSegment(fn func(string, bool)) { p.fn = fn }

// capture replaces logf for the test and returns what it logged.
func capture(t *testing.T) func() string {
	var mu sync.Mutex
	var b strings.Builder
	old := logf
	logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&b, format+"\n", args...)
	}
	t.Cleanup(func() { logf = old })
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return b.String()
	}
}

// TestRegisters checks that start registers the uploader with a profile
// that has the hook, and that the last segment logs the counters and
// closes it.
func TestRegisters(t *testing.T) {
	logged := capture(t)
	p := &fakeProfile{}
	u := start(upload.Config{URL: "http://127.0.0.1:1", Logf: func(string, ...any) {}}, p)
	if u == nil || p.fn == nil {
		t.Fatal("no hook registered")
	}
	p.fn("/nonexistent/segment.bin", true)
	if s := u.Stats(); s.Segments != 1 || s.Failed != 1 {
		t.Errorf("stats %+v, want one failed segment", s)
	}
	if !strings.Contains(logged(), "profiler: upload: 1 segments") {
		t.Errorf("log %q: no counters line", logged())
	}
}

// TestNoHook checks that a profile without the hook leaves uploads off.
func TestNoHook(t *testing.T) {
	logged := capture(t)
	if u := start(upload.Config{URL: "http://127.0.0.1:1"}, struct{}{}); u != nil {
		t.Error("uploader started without a hook")
	}
	if !strings.Contains(logged(), "no segment hook") {
		t.Errorf("log %q", logged())
	}
}
