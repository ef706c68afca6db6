package httpprof_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/trace"
	"testing"

	"github.com/gotachyon/profiler/httpprof"
	"github.com/gotachyon/profiler/internal/tracelabel"
)

// BenchmarkLabels measures what Labels adds to a request, with a mux
// (whose pattern is looked up once more) and with a plain handler (whose
// route is derived from the path), against the bare handler; "traced" is
// as with a profile running: the runtime's trace on (into io.Discard) and
// label events wanted, so that each request writes its labels to the
// trace, and the profile's labels back as it ends. Its allocs/op are per
// request: nothing is allocated per sample here.
func BenchmarkLabels(b *testing.B) {
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", noop)
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"mux/bare", mux},
		{"mux/labels", httpprof.Labels(mux)},
		{"path/bare", noop},
		{"path/labels", httpprof.Labels(noop)},
	} {
		for _, traced := range []bool{false, true} {
			name := bc.name
			if traced {
				name += "/traced"
			}
			b.Run(name, func(b *testing.B) {
				if traced {
					if err := trace.Start(io.Discard); err != nil {
						b.Fatal(err)
					}
					defer trace.Stop()
					tracelabel.Enable()
					defer tracelabel.Disable()
				}
				r := httptest.NewRequest("GET", "/items/42", nil)
				w := httptest.NewRecorder()
				b.ReportAllocs()
				for b.Loop() {
					bc.h.ServeHTTP(w, r)
				}
			})
		}
	}
}
