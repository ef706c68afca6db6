package profiler_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/httpprof"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/upload"
)

// TestNoProfilerGoroutines runs everything of the profiler that starts
// goroutines, and checks that none of them is in any profile (issue 26):
// a segmented profile uploading each segment to a local store, with a
// request to an httpprof handler while it runs (answered 409); then a
// checkpointed profile to a path whose last run's checkpoints are
// recovered beside it; then two profiles httpprof serves, through the
// Auto and the snapshot backend. No sample of any file may show the
// module's product code on a goroutine that is not the test's own (the
// test function calling Start and Stop, its workload goroutines).
func TestNoProfilerGoroutines(t *testing.T) {
	stopWork := ownWorkload()
	defer stopWork()
	dir := t.TempDir()
	var files [][]string // the files of each profile

	// Segments, uploaded, and a request to httpprof meanwhile.
	var pushes atomic.Int32
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		pushes.Add(1)
		w.Header().Set("Content-Type", "application/proto")
	}))
	defer store.Close()
	u, err := upload.New(upload.Config{URL: store.URL, Service: "own", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	hp := httptest.NewServer(httpprof.Handler())
	defer hp.Close()
	segs := filepath.Join(dir, "segments")
	p := profiler.Start(profiler.WithPath(segs), profiler.WithSegment(500*time.Millisecond), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	p.OnSegment(u.Segment)
	time.Sleep(time.Second)
	if code, _ := ownGet(t, hp.URL+"?seconds=1"); code != http.StatusConflict {
		t.Errorf("httpprof during a profile: %d, want 409", code)
	}
	time.Sleep(2 * time.Second)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if pushes.Load() == 0 {
		t.Error("no segment reached the store")
	}
	got, _ := filepath.Glob(filepath.Join(segs, "*.tachyon"))
	if len(got) < 2 {
		t.Fatalf("%d segments", len(got))
	}
	files = append(files, got)

	// Checkpoints, and the checkpoints of a dead run recovered.
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, "profile-20261123T104945.053Z-000001.tachyon"), proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(part, "lock"), nil, 0o644) // not held: its process is dead
	p = profiler.Start(profiler.WithPath(out), profiler.WithCheckpoint(300*time.Millisecond), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if crashed, _ := filepath.Glob(filepath.Join(dir, "prof-crashed-*.bin")); len(crashed) != 1 {
		t.Errorf("recovered %v, want one file", crashed)
	}
	files = append(files, []string{out})

	// Profiles httpprof serves, through each backend.
	for _, backend := range []string{"auto", "snapshot"} {
		code, body := ownGet(t, hp.URL+"?seconds=1.5&backend="+backend)
		if code != http.StatusOK {
			t.Fatalf("httpprof, backend %s: %d %s", backend, code, body)
		}
		path := filepath.Join(dir, "httpprof-"+backend+".tachyon")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, []string{path})
	}

	for _, group := range files {
		tests := 0
		for _, f := range group {
			bad, n := proftest.ProfilerSamples(t, f, ownTest)
			tests += n
			if len(bad) > 0 {
				t.Errorf("%s: %d stacks of the profiler's own goroutines, the first:\n%s", filepath.Base(f), len(bad), strings.Join(bad[:min(len(bad), 8)], "\n"))
			}
		}
		if tests == 0 {
			t.Errorf("%s: no sample of the test's own goroutines", filepath.Base(group[0]))
		}
	}
}

// ownTest says whether fn is this test's own: a function of the test
// package (the test calling Start and Stop, its workload).
func ownTest(fn string) bool { return strings.HasPrefix(fn, "github.com/gotachyon/profiler_test.") }

// ownWorkload starts goroutines that compute, sleep and switch, for the
// profiles to hold the test's own samples beside any of the profiler's.
func ownWorkload() (stop func()) {
	stopPP := testutil.PingPong(1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); stopPP() }
}

// ownGet gets url and returns the status code and body.
func ownGet(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}
