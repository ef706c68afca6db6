package httpprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/quietpipe"
	"github.com/gotachyon/profiler/sampler"
)

// Limits on the query parameters and on what one request may hold.
const (
	DefaultSeconds  = 30        // profile duration when seconds is absent
	MaxSeconds      = 3600      // longest profile one request may ask for
	DefaultMaxBytes = 256 << 20 // Options.MaxBytes when it is not set
)

// Options bound what one request may use. The zero value is the default.
type Options struct {
	// MaxBytes is the most bytes one profile may take (DefaultMaxBytes if
	// zero or negative). A profile that would pass it stops at once and
	// the request is answered 507 Insufficient Storage: nothing of it is
	// sent.
	MaxBytes int64
	// Dir is the directory of the temporary file that holds the profile
	// until it is sent (os.TempDir if empty). Where that is a tmpfs, the
	// file takes the machine's memory, not the process's: name a
	// directory on a disk to keep it off both.
	Dir string
}

// Handler returns the profiling handler with the default Options. Query
// parameters, all optional:
//
//	seconds  profile duration, may be fractional (default 30, at most 3600)
//	mode     "wall" (default) or "cpu"
//	rate     sampling rate in Hz (default 100)
//	backend  "auto" (default), "trace" or "snapshot"
//	recent   instead of profiling now, the last part of the running
//	         profile's recent window (see below): a Go duration ("30s")
//	         or seconds, at most 3600; alone, without the others
//
// The answer is the finalized file (Content-Type application/octet-stream,
// Content-Disposition attachment) with the header X-Tachyon-Backend naming
// the backend that ran. Errors: 400 for a bad parameter, or seconds longer
// than the server's WriteTimeout; 409 Conflict when a profile is already
// running in the process (another request, package auto, or the program's
// own profiler.Start); 507 Insufficient Storage when the profile passes
// Options.MaxBytes; 500 when profiling fails (the temporary file cannot be
// created or written, for one). If the client goes away the profile stops
// early and nothing is sent.
//
// What a request holds: the profile is written to a temporary file, not
// the heap, and sent from it; the file is deleted when the request ends,
// whatever happens (on Unix it has no name from the start, so that not
// even a crash leaves it). One request at a time profiles (the others get
// 409), so the handler takes at most Options.MaxBytes of disk.
//
// With recent, the handler profiles nothing: it answers at once (after
// the few seconds the sampler takes to write the last samples) with
// profiler.RecentContext's file of the last part of the recent window of
// the profile that runs (profiler.WithRecent, PROFILE_RECENT; a profile
// in segments keeps one), with the headers X-Tachyon-Recent-From and
// X-Tachyon-Recent-To giving the span it covers exactly (RFC 3339, UTC),
// which is shorter than asked when the window holds less. It takes the
// same protections: the file is written to a temporary file bounded by
// Options.MaxBytes (507 past it), one such request at a time (409), 400
// for a bad duration; 404 when no running profile keeps a window, with
// how to keep one.
//
// Protect the endpoint. The profile holds the stacks of every goroutine,
// the names of the program's functions and the paths of its source files,
// and a request costs the program the sampling it asks for (up to an hour
// at 10000 Hz). Do not serve it on a public listener: mount it on a
// separate listener bound to a private address or localhost, or behind the
// authentication that guards the program's other internals, as the
// documentation of net/http/pprof advises for its handlers.
func Handler() http.Handler { return NewHandler(Options{}) }

// NewHandler returns the profiling handler of Handler with the given
// limits.
func NewHandler(o Options) http.Handler {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return &handler{o: o}
}

type handler struct {
	o      Options
	recent atomic.Bool // a ?recent= request is being answered
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Has("recent") {
		h.serveRecent(w, r)
		return
	}
	opts, d, err := parse(r)
	if err != nil {
		http.Error(w, "httpprof: "+err.Error(), http.StatusBadRequest)
		return
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 && d >= srv.WriteTimeout {
		http.Error(w, fmt.Sprintf("httpprof: seconds=%v exceeds the server's WriteTimeout %v", d.Seconds(), srv.WriteTimeout), http.StatusBadRequest)
		return
	}
	// From here the request is the profiler's work: its goroutine is left
	// out of the profiles, this one's and one already running.
	defer own.Enter()()
	sp, err := newSpill(h.o.Dir, h.o.MaxBytes)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer sp.remove()
	p := profiler.Start(append(opts, profiler.WithOutput(sp), profiler.WithQuiet(true), profiler.WithLogger(busyLog))...)
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
	case <-sp.full:
	case <-r.Context().Done():
		p.Stop() // client gone: nobody to send the profile to
		return
	}
	err = p.Stop()
	if sp.tooLarge() {
		http.Error(w, fmt.Sprintf("httpprof: the profile passed the handler's limit of %d bytes (Options.MaxBytes); ask for fewer seconds or a lower rate", h.o.MaxBytes), http.StatusInsufficientStorage)
		return
	}
	var body io.Reader
	if err == nil {
		body, err = sp.reader()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Disposition", `attachment; filename="profile.tachyon"`)
	hd.Set("Content-Length", strconv.FormatInt(sp.size, 10))
	hd.Set("X-Tachyon-Backend", p.Backend().String())
	io.Copy(w, body)
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

// busyLog is the log of the handler's profiles: the standard logger's,
// less the refusal of a request while a profile runs, which the client is
// told (409) and could otherwise repeat into the server's log at will.
var busyLog = log.New(busyFilter{}, "", 0)

// busyFilter passes what the profiler logs to the standard logger, less
// profiler.ErrRunning.
type busyFilter struct{}

func (busyFilter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(profiler.ErrRunning.Error())) {
		quietpipe.Print(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}
