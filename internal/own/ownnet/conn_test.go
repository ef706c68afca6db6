package ownnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// shortGrace sets own's grace to d for the test.
func shortGrace(t testing.TB, d time.Duration) { t.Cleanup(own.SetGrace(d)) }

// claims returns the claims outstanding on id.
func claims(id uint64) int { return own.Claims(id) }

// TestConnClaims: the goroutines that read and write a Conn are the
// profiler's until it is closed, then for their grace.
func TestConnClaims(t *testing.T) {
	shortGrace(t, 100*time.Millisecond)
	a, b := net.Pipe()
	c := Conn(a)
	ids := make(chan uint64, 2)
	go func() {
		ids <- goid.Current()
		io.Copy(io.Discard, c)
	}()
	go func() {
		ids <- goid.Current()
		c.Write([]byte("x"))
	}()
	go io.Copy(b, strings.NewReader("hello"))
	reader, writer := <-ids, <-ids
	if !testutil.WaitFor(5*time.Second, func() bool { return claims(reader) == 1 && claims(writer) == 1 }) {
		t.Fatalf("claims: reader %d, writer %d, want 1 each", claims(reader), claims(writer))
	}
	if own.Has(goid.Current()) {
		t.Error("the goroutine that made the Conn is the profiler's")
	}
	c.Close()
	b.Close()
	if claims(reader) != 0 || claims(writer) != 0 {
		t.Error("claims outlive Close")
	}
	if !testutil.WaitFor(5*time.Second, func() bool { return !own.Has(reader) && !own.Has(writer) }) {
		t.Error("a closed Conn's goroutines are the profiler's after their grace")
	}
}

// TestDial: the dialing goroutine is the profiler's while it dials and,
// when the dial succeeds, until the connection closes.
func TestDial(t *testing.T) {
	shortGrace(t, time.Millisecond)
	me := goid.Current()
	var during bool
	fail := errors.New("refused")
	d := Dial(func(context.Context, string, string) (net.Conn, error) {
		during = own.Has(me)
		return nil, fail
	})
	if _, err := d(context.Background(), "tcp", "x"); !errors.Is(err, fail) || !during {
		t.Fatalf("dial: %v, the profiler's during it: %v", err, during)
	}
	if claims(me) != 0 {
		t.Fatal("a failed dial left its claim")
	}
	a, b := net.Pipe()
	defer b.Close()
	c, err := Dial(func(context.Context, string, string) (net.Conn, error) { return a, nil })(context.Background(), "tcp", "x")
	if err != nil || claims(me) != 1 {
		t.Fatalf("dial: %v, %d claims", err, claims(me))
	}
	c.Close()
	if claims(me) != 0 {
		t.Error("Close left the dial's claim")
	}
}

// TestHTTPTransport: with Dial, the goroutines net/http's transport starts
// for a connection (found here by their functions, which the product never
// looks at) are the profiler's, and the program's again once it is closed.
func TestHTTPTransport(t *testing.T) {
	shortGrace(t, 100*time.Millisecond)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = Dial((&net.Dialer{}).DialContext)
	hc := &http.Client{Transport: tr}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var ids []uint64
	ok := testutil.WaitFor(5*time.Second, func() bool {
		ids = goroutinesIn("net/http.(*persistConn).readLoop", "net/http.(*persistConn).writeLoop")
		for _, id := range ids {
			if !own.Has(id) {
				return false
			}
		}
		return len(ids) == 2
	})
	if !ok {
		t.Fatalf("transport goroutines %v: not all the profiler's", ids)
	}
	tr.CloseIdleConnections()
	if !testutil.WaitFor(5*time.Second, func() bool { return !own.Has(ids[0]) && !own.Has(ids[1]) }) {
		t.Error("the transport's goroutines are the profiler's after the connection closed and their grace")
	}
}

// goroutinesIn returns the ids of the goroutines whose stack holds one of
// the functions.
func goroutinesIn(funcs ...string) []uint64 {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var ids []uint64
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range funcs {
			if strings.Contains(g, "\n"+f+"(") {
				if id, _, ok := goid.ParseHeader([]byte(g)); ok {
					ids = append(ids, id)
				}
				break
			}
		}
	}
	return ids
}
