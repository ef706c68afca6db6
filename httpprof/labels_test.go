package httpprof_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/httpprof"
)

// goroutineLabels returns the pprof labels of each goroutine whose stack
// holds a function whose name ends in fn, read from the goroutine profile:
// the goroutines' own labels, not a context's.
func goroutineLabels(t *testing.T, fn string) []map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, s := range p.Sample {
		if !hasFunc(s, fn) {
			continue
		}
		for range s.Value[0] {
			ls := map[string]string{}
			for k, vs := range s.Label {
				ls[k] = vs[0]
			}
			out = append(out, ls)
		}
	}
	return out
}

func hasFunc(s *profile.Sample, suffix string) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if strings.HasSuffix(ln.Function.Name, suffix) {
				return true
			}
		}
	}
	return false
}

// Distinct functions, so that the goroutine profile tells the handler's
// goroutine from the one it starts.
//
//go:noinline
func inHandler(wait <-chan struct{}) { <-wait }

//go:noinline
func inChild(wait <-chan struct{}) { <-wait }

// TestLabelsRoute serves requests through Labels over a real connection
// and reads, while the handler waits, the labels of its goroutine and of a
// goroutine it started, from the goroutine profile; then, after the
// response, that the connection's goroutine carries none.
func TestLabelsRoute(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", labelledHandler)
	mux.HandleFunc("example.com/hosts/", labelledHandler)
	inner := http.NewServeMux()
	inner.Handle("POST /inner/{x}", httpprof.Labels(http.HandlerFunc(labelledHandler)))
	for _, tc := range []struct {
		name, method, path string
		h                  http.Handler
		route, meth        string
	}{
		{"mux pattern", "GET", "/items/42", mux, "/items/{id}", "GET"},
		{"mux pattern with host", "GET", "/hosts/a", mux, "/hosts/", "GET"},
		{"pattern of a mux in front", "POST", "/inner/abc", inner, "/inner/{x}", "POST"},
		{"path", "PUT", "/users/123/orders/550e8400-e29b-41d4-a716-446655440000", nil, "/users/{id}/orders/{id}", "PUT"},
		{"path with long hex", "DELETE", "/blobs/0123456789abcdef0123/meta", nil, "/blobs/{id}/meta", "DELETE"},
		{"path with words", "GET", "/api/v2/cafe/", nil, "/api/v2/cafe/", "GET"},
		{"unknown method", "BREW", "/pot", nil, "/pot", httpprof.OtherMethod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h
			if h == nil {
				h = http.HandlerFunc(labelledHandler)
			}
			if h != inner {
				h = httpprof.Labels(h)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tc.path, "/hosts/") {
				req.Host = "example.com"
			}
			want := map[string]string{httpprof.LabelRoute: tc.route, httpprof.LabelMethod: tc.meth}
			wait := make(chan struct{})
			handlerWait = wait
			done := make(chan *http.Response, 1)
			go func() {
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					close(done)
					return
				}
				done <- resp
			}()
			for _, fn := range []string{".inHandler", ".inChild"} {
				got := waitLabels(t, fn)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s's goroutine has labels %v, want %v", fn, got, want)
				}
			}
			close(wait)
			resp := <-done
			if resp == nil {
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != tc.route+" "+tc.meth {
				t.Errorf("the handler's context has %q, want %q", body, tc.route+" "+tc.meth)
			}
			// The connection's goroutine waits for the next request.
			for _, ls := range goroutineLabels(t, "net/http.(*conn).serve") {
				if len(ls) != 0 {
					t.Errorf("a connection's goroutine keeps the labels %v after the request", ls)
				}
			}
		})
	}
}

// handlerWait is what labelledHandler waits on; the subtests run in turn.
var handlerWait chan struct{}

// labelledHandler starts a goroutine and waits, with it, until the test
// has read their labels; it answers with the labels of its context.
func labelledHandler(w http.ResponseWriter, r *http.Request) {
	wait := handlerWait
	child := make(chan struct{})
	go func() { inChild(wait); close(child) }()
	inHandler(wait)
	<-child
	route, _ := pprof.Label(r.Context(), httpprof.LabelRoute)
	meth, _ := pprof.Label(r.Context(), httpprof.LabelMethod)
	fmt.Fprint(w, route+" "+meth)
}

// waitLabels returns the labels of the one goroutine in fn, once it is
// there.
func waitLabels(t *testing.T, fn string) map[string]string {
	t.Helper()
	for range 1000 {
		if ls := goroutineLabels(t, fn); len(ls) == 1 {
			return ls[0]
		} else if len(ls) > 1 {
			t.Fatalf("%d goroutines in %s", len(ls), fn)
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no goroutine in %s", fn)
	return nil
}

// TestLabelsRestore calls a Labels handler on the test's goroutine, whose
// labels and request context carry an outer label: inside, the goroutine
// has the outer label and the route's; after, the outer one alone.
func TestLabelsRestore(t *testing.T) {
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("tenant", "acme"))
	pprof.SetGoroutineLabels(ctx)
	defer pprof.SetGoroutineLabels(context.Background())
	var inside map[string]string
	h := httpprof.Labels(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inside = ownLabels(t)
	}))
	r := httptest.NewRequestWithContext(ctx, "GET", "/a/1", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	after := ownLabels(t)
	want := map[string]string{"tenant": "acme", httpprof.LabelRoute: "/a/{id}", httpprof.LabelMethod: "GET"}
	if fmt.Sprint(inside) != fmt.Sprint(want) {
		t.Errorf("inside: %v, want %v", inside, want)
	}
	if fmt.Sprint(after) != fmt.Sprint(map[string]string{"tenant": "acme"}) {
		t.Errorf("after: %v, want the outer label alone", after)
	}
}

// ownLabels returns the calling goroutine's labels.
//
//go:noinline
func ownLabels(t *testing.T) map[string]string {
	ls := goroutineLabels(t, ".ownLabels")
	if len(ls) != 1 {
		t.Fatalf("%d goroutines in ownLabels", len(ls))
	}
	return ls[0]
}

// TestLabelsBounds checks the bounds of the route label: its length, its
// encoding, and the number of routes derived from paths.
func TestLabelsBounds(t *testing.T) {
	var got string
	h := httpprof.Labels(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = pprof.Label(r.Context(), httpprof.LabelRoute)
	}))
	serve := func(path string) string {
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path = path
		h.ServeHTTP(httptest.NewRecorder(), r)
		return got
	}
	long := serve("/" + strings.Repeat("é", 200))
	if len(long) > httpprof.MaxRouteBytes || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "/éé") {
		t.Errorf("a long path's route is %q (%d bytes)", long, len(long))
	}
	if rt := serve("/a\xff/b"); rt != "/a\uFFFD/b" {
		t.Errorf("invalid UTF-8: route %q", rt)
	}
	for i := range httpprof.MaxRoutes {
		serve(fmt.Sprintf("/page-%d", i))
	}
	if rt := serve("/one-more"); rt != httpprof.OtherRoute {
		t.Errorf("route past MaxRoutes: %q, want %q", rt, httpprof.OtherRoute)
	}
	if rt := serve("/page-7"); rt != "/page-7" {
		t.Errorf("a route seen before MaxRoutes: %q", rt)
	}
}
