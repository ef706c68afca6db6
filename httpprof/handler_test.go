package httpprof

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
)

func get(t *testing.T, srv *httptest.Server, query string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(srv.URL + "/debug/tachyon?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestProfile(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, mode := range []string{"wall", "cpu"} {
		t.Run(mode, func(t *testing.T) {
			resp, body := get(t, srv, "seconds=0.5&rate=200&mode="+mode)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
				t.Errorf("Content-Disposition %q", cd)
			}
			if b := resp.Header.Get("X-Tachyon-Backend"); b != "trace" && b != "snapshot" {
				t.Errorf("X-Tachyon-Backend %q", b)
			}
			path := filepath.Join(t.TempDir(), mode+".bin")
			if err := os.WriteFile(path, body, 0o644); err != nil {
				t.Fatal(err)
			}
			proftest.Validate(t, path)
		})
	}
}

func TestErrors(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, q := range []string{"seconds=x", "seconds=-1", "seconds=99999", "mode=gpu", "rate=0", "rate=x", "backend=magic"} {
		if resp, body := get(t, srv, q); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400 (%s)", q, resp.StatusCode, body)
		}
	}
	p := profiler.Start(profiler.WithOutput(new(seekbuf.Buffer)), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	resp, body := get(t, srv, "seconds=0.1")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "already running") {
		t.Errorf("while profiling: status %d %q, want 409", resp.StatusCode, body)
	}
	if logged.Len() != 0 {
		t.Errorf("a 409 wrote to the server's log: %q", logged.String())
	}
}

func TestWriteTimeout(t *testing.T) {
	srv := httptest.NewUnstartedServer(Handler())
	srv.Config.WriteTimeout = 1e9
	srv.Start()
	defer srv.Close()
	if resp, _ := get(t, srv, "seconds=5"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400 for seconds > WriteTimeout", resp.StatusCode)
	}
}
