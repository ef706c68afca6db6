package pyroscope_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"google.golang.org/protobuf/proto"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/upload/pyroscope"
)

// bigProfile returns a wall profile of n samples, each with a stack of its
// own.
func bigProfile(n int) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	for i := range n {
		fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("pkg%d.(*Handler%x).Serve", i%97, i*40503), Filename: fmt.Sprintf("/src/pkg%d/handler_%x.go", i%97, i)}
		loc := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(i)}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{1, 10_000_000}})
	}
	return p
}

// TestSendCopiesOnce checks that a push sends the queued payload without
// decoding it: Connect copies it into a buffer of its pool, and the bytes
// allocated during a push are a fraction of the payload (at most a
// quarter; under the race detector, whose sync.Pool drops buffers, less
// than the payload), where decoding and encoding it again allocated about
// twice its size.
func TestSendCopiesOnce(t *testing.T) {
	got := make(chan int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got <- n
		w.Header().Set("Content-Type", "application/proto")
	}))
	defer srv.Close()
	c, err := pyroscope.New(srv.URL, "checkout", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload, err := c.Encode(bigProfile(20000))
	if err != nil {
		t.Fatal(err)
	}
	send := func() {
		if err := c.Send(context.Background(), payload); err != nil {
			t.Fatal(err)
		}
		if n := <-got; n != int64(len(payload)) {
			t.Fatalf("store got %d bytes, want %d", n, len(payload))
		}
	}
	send() // connects
	const pushes = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range pushes {
		send()
	}
	runtime.ReadMemStats(&after)
	perPush := int64(after.TotalAlloc-before.TotalAlloc) / pushes
	t.Logf("payload %d bytes; %d bytes allocated per push", len(payload), perPush)
	bound := int64(len(payload)) / 4
	if testutil.Race {
		bound = int64(len(payload))
	}
	if perPush > bound {
		t.Errorf("a push of %d bytes allocated %d bytes, want at most %d: no copy of the payload beyond Connect's pooled one", len(payload), perPush, bound)
	}
}

// TestLabelNames encodes a profile whose sample labels have names that
// are not Prometheus label names: the pushed profile has them as
// Prometheus names, and a name already valid keeps its value over one
// renamed into it.
func TestLabelNames(t *testing.T) {
	p := bigProfile(1)
	p.Sample[0].Label = map[string][]string{"http.route": {"/a"}, "1st": {"x"}, "task": {"t"},
		"a.b": {"renamed"}, "a_b": {"kept"}, "ünï": {"u"}}
	c, err := pyroscope.New("http://127.0.0.1:1", "checkout", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data, err := c.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	var req pushv1.PushRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	got, err := profile.ParseData(req.Series[0].Samples[0].RawProfile)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"http_route": {"/a"}, "_1st": {"x"}, "task": {"t"}, "a_b": {"kept"}, "__n__": {"u"}} // one underscore a byte
	if fmt.Sprint(got.Sample[0].Label) != fmt.Sprint(want) {
		t.Errorf("labels %v, want %v", got.Sample[0].Label, want)
	}
}

// TestRedirectRefused: a store that redirects a push (here from one
// server to another, as an https store might to plain http) gets nothing
// through: the push fails at once, for good, and the other server sees no
// request and no credentials.
func TestRedirectRefused(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusPermanentRedirect)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://alice:s3cret@", 1)
	c, err := pyroscope.New(u, "checkout", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload, err := c.Encode(bigProfile(10))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Send(context.Background(), payload)
	if err == nil || !strings.Contains(err.Error(), "redirect") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("push: %v, want an error about the redirect, without the password", err)
	}
	if c.Retryable(err) {
		t.Errorf("a redirected push is retried: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// TestRefusedForGood: a store's plain 4xx (a proxy's 400, a 413 for a
// payload too large) is not retried, since a retry would send the same
// push; 429, 408 and 5xx are.
func TestRefusedForGood(t *testing.T) {
	for _, c := range []struct {
		status int
		retry  bool
	}{{400, false}, {413, false}, {422, false}, {408, true}, {429, true}, {500, true}, {503, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			http.Error(w, "no", c.status)
		}))
		cl, err := pyroscope.New(srv.URL, "checkout", nil)
		if err != nil {
			t.Fatal(err)
		}
		payload, err := cl.Encode(bigProfile(10))
		if err != nil {
			t.Fatal(err)
		}
		err = cl.Send(context.Background(), payload)
		if err == nil || cl.Retryable(err) != c.retry {
			t.Errorf("HTTP %d: %v, retryable %v, want %v", c.status, err, cl.Retryable(err), c.retry)
		}
		cl.Close()
		srv.Close()
	}
}
