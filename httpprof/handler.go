package httpprof

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/seekbuf"
	"github.com/gotachyon/profiler/sampler"
)

// Limits on the query parameters.
const (
	DefaultSeconds = 30   // profile duration when seconds is absent
	MaxSeconds     = 3600 // longest profile one request may ask for
)

// Handler returns the profiling handler. Query parameters, all optional:
//
//	seconds  profile duration, may be fractional (default 30, at most 3600)
//	mode     "wall" (default) or "cpu"
//	rate     sampling rate in Hz (default 100)
//	backend  "auto" (default), "trace" or "snapshot"
//
// The answer is the finalized file (Content-Type application/octet-stream,
// Content-Disposition attachment) with the header X-Tachyon-Backend naming
// the backend that ran. Errors: 400 for a bad parameter, or seconds longer
// than the server's WriteTimeout; 409 Conflict when a profile is already
// running in the process (another request, package auto, or the program's
// own profiler.Start); 500 when profiling fails. If the client goes away the
// profile stops early and nothing is sent. The profile is held in memory
// until sent.
func Handler() http.Handler { return http.HandlerFunc(serve) }

func serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	opts, d, err := parse(r)
	if err != nil {
		http.Error(w, "httpprof: "+err.Error(), http.StatusBadRequest)
		return
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 && d >= srv.WriteTimeout {
		http.Error(w, fmt.Sprintf("httpprof: seconds=%v exceeds the server's WriteTimeout %v", d.Seconds(), srv.WriteTimeout), http.StatusBadRequest)
		return
	}
	var buf seekbuf.Buffer
	p := profiler.Start(append(opts, profiler.WithOutput(&buf), profiler.WithQuiet(true))...)
	if err := p.Err(); err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, profiler.ErrRunning) {
			code = http.StatusConflict
		}
		http.Error(w, err.Error(), code)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		p.Stop() // client gone: nobody to send the profile to
		return
	}
	if err := p.Stop(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="profile.tachyon"`)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("X-Tachyon-Backend", p.Backend().String())
	w.Write(buf.Bytes())
}

// parse reads the query into options and a duration.
func parse(r *http.Request) ([]profiler.Option, time.Duration, error) {
	q := r.URL.Query()
	secs := float64(DefaultSeconds)
	if s := q.Get("seconds"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0 && v <= MaxSeconds) {
			return nil, 0, fmt.Errorf("seconds=%q: want a number in (0, %d]", s, MaxSeconds)
		}
		secs = v
	}
	var opts []profiler.Option
	if s := q.Get("mode"); s != "" {
		m, err := sampler.ParseMode(s)
		if err != nil {
			return nil, 0, fmt.Errorf("mode=%q: %w", s, err)
		}
		opts = append(opts, profiler.WithMode(m))
	}
	if s := q.Get("rate"); s != "" {
		hz, err := strconv.Atoi(s)
		if err != nil || hz < 1 || hz > sampler.MaxRate {
			return nil, 0, fmt.Errorf("rate=%q: want an integer in [1, %d]", s, sampler.MaxRate)
		}
		opts = append(opts, profiler.WithRate(hz))
	}
	if s := q.Get("backend"); s != "" {
		b, err := sampler.ParseBackend(s)
		if err != nil {
			return nil, 0, fmt.Errorf("backend=%q: %w", s, err)
		}
		opts = append(opts, profiler.WithBackend(b))
	}
	return opts, time.Duration(secs * float64(time.Second)), nil
}
