package upload_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/upload"
)

// TestTransportGoroutinesOwn: the uploader's pusher and the goroutines its
// transport starts to read and write its connection are the profiler's
// (issue 26); the store's goroutines and the caller's are not. The
// goroutines are found here by their functions, which the product never
// looks at.
func TestTransportGoroutinesOwn(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			u.Segment(segments(t, t.TempDir(), 1)[0], true)
			if s := u.Stats(); s.Pushed != 1 {
				t.Fatalf("stats: %+v", s)
			}
			gs := goroutines()
			want := map[string]bool{"github.com/gotachyon/profiler/upload.(*Uploader).run": true}
			switch st.name {
			case "pyroscope":
				want["net/http.(*persistConn).readLoop"] = true
				want["net/http.(*persistConn).writeLoop"] = true
				want["net/http.(*conn).serve"] = false // the store's
			case "otlp":
				want["google.golang.org/grpc/internal/transport.(*http2Client).reader"] = true
				want["google.golang.org/grpc/internal/transport.NewHTTP2Client.func"] = true // its writer
				want["google.golang.org/grpc/internal/transport.NewServerTransport.func"] = false
			}
			for fn, ours := range want {
				n := 0
				for id, stack := range gs {
					if strings.Contains(stack, "\n"+fn) {
						n++
						if own.Has(id) != ours {
							t.Errorf("goroutine %d in %s: the profiler's %v, want %v\n%s", id, fn, !ours, ours, stack)
						}
					}
				}
				if ours && n == 0 {
					t.Errorf("no goroutine in %s", fn)
				}
			}
			if own.Has(goid.Current()) {
				t.Error("the goroutine calling Segment is the profiler's")
			}
		})
	}
}

// goroutines returns every goroutine's traceback by id.
func goroutines() map[uint64]string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	gs := map[uint64]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if id, _, ok := goid.ParseHeader([]byte(g)); ok {
			gs[id] = g
		}
	}
	return gs
}
