package profiler_test

import (
	"errors"
	"io"
	"log"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
)

// TestCaptureAfterStop calls Capture on a profile that stopped within
// the capture period of its last capture: it is ErrNoRecent, as after
// any Stop, not a capture refused by the rate limit, and it is not
// counted as one.
func TestCaptureAfterStop(t *testing.T) {
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(10*time.Second, 0), profiler.WithCaptureDir(t.TempDir()),
		profiler.WithCaptureSpan(time.Second, 0), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := p.Capture("one"); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	before := p.CaptureStats()
	if err := p.Capture("late"); !errors.Is(err, profiler.ErrNoRecent) {
		t.Errorf("Capture after Stop: %v, want ErrNoRecent", err)
	}
	if after := p.CaptureStats(); after != before {
		t.Errorf("Capture after Stop changed the counts from %+v to %+v", before, after)
	}
}

// TestCaptureAtStopEndsAtStop takes a capture whose after (a minute) is
// cut short by Stop: the capture, written at Stop, must state a span that
// ends when the profile did, not a minute later.
func TestCaptureAtStopEndsAtStop(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	dir := t.TempDir()
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(10*time.Second, 0), profiler.WithCaptureDir(dir),
		profiler.WithCaptureSpan(time.Second, time.Minute), profiler.WithLogger(log.New(lockedWriter{&mu, &logs}, "", 0)))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := p.Capture("short"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	m := regexp.MustCompile(`capture "short" at \S+: \d+ samples of \d+ goroutines from (\S+) to (\S+) in`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no capture line in the log:\n%s", out)
	}
	to, err := time.Parse(time.RFC3339Nano, m[2])
	if err != nil {
		t.Fatal(err)
	}
	if to.After(stopped) {
		t.Errorf("the capture's span ends at %v, %v after Stop returned", to, to.Sub(stopped))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
