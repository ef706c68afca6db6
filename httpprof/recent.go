package httpprof

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/own"
)

// serveRecent answers a ?recent= request (see Handler).
func (h *handler) serveRecent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d, err := parseRecent(q.Get("recent"))
	for _, k := range []string{"seconds", "mode", "rate", "backend"} {
		if err == nil && q.Has(k) {
			err = fmt.Errorf("recent= takes the running profile's window: %s= cannot go with it", k)
		}
	}
	if err != nil {
		http.Error(w, "httpprof: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !h.recent.CompareAndSwap(false, true) {
		http.Error(w, "httpprof: another recent= request is being answered; try again when it is", http.StatusConflict)
		return
	}
	defer h.recent.Store(false)
	defer own.Enter()()
	sp, err := newSpill(h.o.Dir, h.o.MaxBytes)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer sp.remove()
	span, err := profiler.RecentContext(r.Context(), sp, d)
	switch {
	case r.Context().Err() != nil:
		return // client gone
	case sp.tooLarge():
		http.Error(w, fmt.Sprintf("httpprof: the recent profile passed the handler's limit of %d bytes (Options.MaxBytes); ask for fewer seconds", h.o.MaxBytes), http.StatusInsufficientStorage)
		return
	case errors.Is(err, profiler.ErrNoRecent):
		http.Error(w, "httpprof: "+err.Error(), http.StatusNotFound)
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
	hd.Set("Content-Disposition", `attachment; filename="recent.tachyon"`)
	hd.Set("Content-Length", strconv.FormatInt(sp.size, 10))
	hd.Set("X-Tachyon-Recent-From", span.From.UTC().Format(time.RFC3339Nano))
	hd.Set("X-Tachyon-Recent-To", span.To.UTC().Format(time.RFC3339Nano))
	io.Copy(w, body)
}

// parseRecent reads recent=: a Go duration or seconds, in (0, MaxSeconds].
func parseRecent(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr == nil && secs > 0 && secs <= MaxSeconds {
			d, err = time.Duration(secs*float64(time.Second)), nil
		}
	}
	if err != nil || d <= 0 || d > MaxSeconds*time.Second {
		return 0, fmt.Errorf("recent=%q: want a duration (30s) or seconds in (0, %d]", s, MaxSeconds)
	}
	return d, nil
}
