package profiler

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
)

// TestStopInCallback calls Stop from each function the profile calls and
// Stop waits for: each such Stop must return an error at once, not wait
// for itself (which hung the callback and every later Stop), and the
// profile's own Stop must then finish the file.
func TestStopInCallback(t *testing.T) {
	const wait = 20 * time.Second
	// stopWithin calls stop and fails the test if it does not return.
	stopWithin := func(t *testing.T, what string, stop func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- stop() }()
		select {
		case err := <-done:
			return err
		case <-time.After(wait):
			t.Fatalf("%s: Stop did not return in %v", what, wait)
			return nil
		}
	}
	check := func(t *testing.T, inner chan error) {
		t.Helper()
		select {
		case err := <-inner:
			if err == nil || !strings.Contains(err.Error(), "Stop called from a function the profile calls") {
				t.Errorf("Stop in the callback: %v, want the callback error", err)
			}
		default:
			t.Error("the callback did not run")
		}
	}

	t.Run("export", func(t *testing.T) {
		dir := t.TempDir()
		inner := make(chan error, 1)
		var p *Profile
		p = Start(WithPath(filepath.Join(dir, "p.bin")), quiet,
			WithExport(filepath.Join(dir, "p.x"), func(*reader.File, io.Writer) error {
				inner <- p.Stop()
				return nil
			}))
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if err := stopWithin(t, "export", p.Stop); err != nil {
			t.Errorf("Stop: %v", err)
		}
		check(t, inner)
	})

	t.Run("segment", func(t *testing.T) {
		inner := make(chan error, 1)
		p := Start(WithPath(t.TempDir()), WithSegment(MinSegment), quiet)
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		p.OnSegment(func(path string, last bool) {
			if !last {
				select {
				case inner <- p.Stop():
				default:
				}
			}
		})
		deadline := time.Now().Add(wait)
		for len(inner) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if err := stopWithin(t, "segment", p.Stop); err != nil {
			t.Errorf("Stop: %v", err)
		}
		check(t, inner)
	})

	t.Run("capture", func(t *testing.T) {
		inner := make(chan error, 1)
		p := Start(WithPath(filepath.Join(t.TempDir(), "p.bin")), WithRecent(time.Second, 1<<20),
			WithCaptureSpan(100*time.Millisecond, 10*time.Millisecond), quiet)
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		p.OnCapture(func(path, reason string) { inner <- p.Stop() })
		time.Sleep(200 * time.Millisecond)
		if err := p.Capture("test"); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(wait)
		for len(inner) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if err := stopWithin(t, "capture", p.Stop); err != nil {
			t.Errorf("Stop: %v", err)
		}
		check(t, inner)
	})
}

// TestStopZeroProfile: Stop of a Profile that Start did not return says
// so, without a panic's stack, and leaves the next Start alone.
func TestStopZeroProfile(t *testing.T) {
	var p Profile
	err := p.Stop()
	if err == nil || strings.Contains(err.Error(), "panic") {
		t.Fatalf("Stop of a zero Profile: %v", err)
	}
	q := Start(WithPath(filepath.Join(t.TempDir(), "p.bin")), quiet)
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestExportToOwnPath: an export to the profile's own path is refused at
// Start, not left to replace the finished profile at Stop.
func TestExportToOwnPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	export := func(_ *reader.File, w io.Writer) error { _, err := io.WriteString(w, "export"); return err }
	p := Start(WithPath(filepath.Join(dir, "p.bin")), WithExport("./p.bin", export), quiet)
	err := p.Stop()
	if p.Err() == nil || err == nil {
		t.Fatalf("Start: %v, Stop: %v; want the export to the profile's path refused", p.Err(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p.bin")); err == nil {
		t.Error("p.bin written")
	}
}
