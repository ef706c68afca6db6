package httpprof

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestRecent serves ?recent= from a running profile's window: the file,
// the span it covers in the headers, and the errors.
func TestRecent(t *testing.T) {
	srv := httptest.NewServer(NewHandler(Options{MaxBytes: 64 << 20}))
	defer srv.Close()
	resp, body := get(t, srv, "recent=1s")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "PROFILE_RECENT") {
		t.Errorf("without a window: status %d: %s", resp.StatusCode, body)
	}
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(10*time.Second, 0), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	time.Sleep(1500 * time.Millisecond)
	call := time.Now()
	resp, body = get(t, srv, "recent=1s")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	from, err1 := time.Parse(time.RFC3339Nano, resp.Header.Get("X-Tachyon-Recent-From"))
	to, err2 := time.Parse(time.RFC3339Nano, resp.Header.Get("X-Tachyon-Recent-To"))
	if err1 != nil || err2 != nil || to.Sub(from) != time.Second || to.Before(call) || to.Sub(call) > time.Second {
		t.Errorf("span %s..%s (%v, %v), asked at %v", resp.Header.Get("X-Tachyon-Recent-From"), resp.Header.Get("X-Tachyon-Recent-To"), err1, err2, call)
	}
	path := filepath.Join(t.TempDir(), "recent.bin")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := proftest.Validate(t, path); n == 0 {
		t.Error("no samples")
	}
	for _, q := range []string{"recent=x", "recent=0", "recent=2h", "recent=NaN", "recent=1s&seconds=1", "recent=1s&mode=cpu"} {
		if resp, body := get(t, srv, q); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", q, resp.StatusCode, body)
		}
	}
	// A profile request meets the running profile: 409, as before.
	if resp, _ := get(t, srv, "seconds=0.1"); resp.StatusCode != http.StatusConflict {
		t.Errorf("a profile beside the running one: status %d", resp.StatusCode)
	}
	// One recent= request at a time: the first waits a second or more
	// for the sampler's watermark.
	first := make(chan int)
	go func() {
		resp, err := http.Get(srv.URL + "/debug/tachyon?recent=1s")
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	time.Sleep(200 * time.Millisecond)
	if resp, body := get(t, srv, "recent=1s"); resp.StatusCode != http.StatusConflict {
		t.Errorf("a second recent= request at once: status %d: %s", resp.StatusCode, body)
	}
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first recent= request: status %d", code)
	}
	small := httptest.NewServer(NewHandler(Options{MaxBytes: 100}))
	defer small.Close()
	if resp, body := get(t, small, "recent=1"); resp.StatusCode != http.StatusInsufficientStorage {
		t.Errorf("past MaxBytes: status %d: %s", resp.StatusCode, body)
	}
}
