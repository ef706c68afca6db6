package httpprof

import (
	"context"
	"net/http"
	"runtime/pprof"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gotachyon/profiler"
)

// The pprof label keys Labels sets, the names OpenTelemetry's semantic
// conventions give the route and the method.
const (
	LabelRoute  = "http.route"
	LabelMethod = "http.method"
)

// Bounds of the route label.
const (
	// MaxRouteBytes is the longest route label: a longer one is cut at a
	// character boundary and ends in "…".
	MaxRouteBytes = 128
	// MaxRoutes is how many distinct routes one Labels handler derives
	// from request paths (when no ServeMux pattern names the route);
	// past it, a new path's route is OtherRoute.
	MaxRoutes = 256
)

// OtherRoute is the route of requests whose path would pass MaxRoutes;
// OtherMethod is the method label of a method net/http does not name.
const (
	OtherRoute  = "{other}"
	OtherMethod = "_OTHER"
)

// Labels returns a handler that serves each request with h while the
// request's goroutine carries the pprof labels http.route and http.method,
// as profiler.Do sets them: added to the labels of the request's context,
// inherited by the goroutines h starts, and seen by a running profile on
// every sample of those goroutines, on and off CPU. When h returns, the
// goroutine's labels are the request context's again. h gets the request
// with the labelled context, so that a profiler.Do inside it adds to the
// route's labels rather than replacing them.
//
// The route is the ServeMux pattern that serves the request, without its
// method and host ("/items/{id}" for "GET /items/{id}"): h's own pattern
// when h is a *http.ServeMux (looked up with its Handler method, as
// Request.Pattern is set only inside the mux), else Request.Pattern when
// a mux in front of Labels has set it. Without a pattern, the route is the
// URL path with its ids elided: each segment that is a number, a UUID or
// a hex string of 16 digits or more reads "{id}", so "/users/42/orders"
// reads "/users/{id}/orders". Routes are bounded, being labels of every
// sample: at most MaxRouteBytes each, valid UTF-8, and, of those derived
// from paths, at most MaxRoutes distinct ones per handler, the later ones
// all OtherRoute. The method is the request's, or OtherMethod for one
// net/http does not name, so that neither label takes arbitrary values
// from a client.
//
// Wrap the outermost handler, a mux, to label every route:
//
//	http.ListenAndServe(addr, httpprof.Labels(mux))
//
// A goroutine that serves a connection takes, for each request, the labels
// of the request's context: those of the http.Server's BaseContext, none
// by default, whatever labels the goroutine that called Serve had.
func Labels(h http.Handler) http.Handler {
	l := &labeler{h: h, seen: make(map[string]string)}
	l.mux, _ = h.(*http.ServeMux)
	return l
}

type labeler struct {
	h   http.Handler
	mux *http.ServeMux

	mu   sync.RWMutex
	seen map[string]string // routes derived from paths, each its own value
}

// ServeHTTP serves r with h under r's route and method labels.
func (l *labeler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	labels := pprof.Labels(LabelRoute, l.route(r), LabelMethod, method(r.Method))
	profiler.Do(r.Context(), labels, func(ctx context.Context) {
		l.h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// route returns r's route label.
func (l *labeler) route(r *http.Request) string {
	pattern := r.Pattern
	if l.mux != nil {
		_, pattern = l.mux.Handler(r)
	}
	if pattern != "" {
		return bound(patternPath(pattern))
	}
	return l.intern(bound(elide(r.URL.Path)))
}

// intern returns the value of the route rt derived from a path, and adds
// it to the routes seen unless there are MaxRoutes already.
func (l *labeler) intern(rt string) string {
	l.mu.RLock()
	v, ok := l.seen[rt]
	l.mu.RUnlock()
	if ok {
		return v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.seen[rt]; ok {
		return v
	}
	if len(l.seen) >= MaxRoutes {
		return OtherRoute
	}
	// A copy, so that the table does not keep the request's memory.
	rt = strings.Clone(rt)
	l.seen[rt] = rt
	return rt
}

// patternPath returns the path of a ServeMux pattern: from its first "/",
// without the method and host before it.
func patternPath(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[i:]
	}
	return p
}

// methods are the methods net/http names, which label as themselves.
var methods = [...]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

// method returns the label of the request method m.
func method(m string) string {
	if m == "" {
		return http.MethodGet // net/http's meaning of an empty method
	}
	for _, k := range methods {
		if m == k {
			return k
		}
	}
	return OtherMethod
}

// elide returns path with each id segment replaced by "{id}", without
// allocating when it has none.
func elide(path string) string {
	if path == "" {
		return "/"
	}
	var b []byte // nil until a segment is elided
	start := 0
	for start <= len(path) {
		end := strings.IndexByte(path[start:], '/')
		if end < 0 {
			end = len(path)
		} else {
			end += start
		}
		seg := path[start:end]
		if isID(seg) {
			if b == nil {
				b = make([]byte, 0, len(path))
				b = append(b, path[:start]...)
			}
			b = append(b, "{id}"...)
		} else if b != nil {
			b = append(b, seg...)
		}
		if end < len(path) && b != nil {
			b = append(b, '/')
		}
		start = end + 1
	}
	if b == nil {
		return path
	}
	return string(b)
}

// isID reports whether a path segment is an id: a number, a UUID, or 16
// or more hex digits.
func isID(s string) bool {
	switch {
	case s == "":
		return false
	case allOf(s, isDigit):
		return true
	case len(s) >= 16 && allOf(s, isHex):
		return true
	}
	return isUUID(s)
}

// isUUID reports whether s is a UUID in its textual form,
// 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func allOf(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// bound returns rt as valid UTF-8 of at most MaxRouteBytes.
func bound(rt string) string {
	if !utf8.ValidString(rt) {
		rt = strings.ToValidUTF8(rt, "\uFFFD")
	}
	if len(rt) <= MaxRouteBytes {
		return rt
	}
	const ellipsis = "…"
	cut := MaxRouteBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(rt[cut]) {
		cut--
	}
	return rt[:cut] + ellipsis
}
