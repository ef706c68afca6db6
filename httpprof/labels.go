package httpprof

import (
	"context"
	"net/http"

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
// sample: at most MaxRouteBytes each, valid UTF-8, those derived from paths
// without control characters (each an underscore), and, of those derived
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
	l := &labeler{h: h}
	l.mux, _ = h.(*http.ServeMux)
	l.routes.m.Store(&map[string]*route{})
	return l
}

type labeler struct {
	h      http.Handler
	mux    *http.ServeMux
	routes routeTable
}

// ServeHTTP serves r with h under r's route and method labels.
func (l *labeler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	labels := l.route(r).labels[methodIndex(r.Method)]
	profiler.Do(r.Context(), labels, func(ctx context.Context) {
		l.h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// route returns r's route.
func (l *labeler) route(r *http.Request) *route {
	pattern := r.Pattern
	if l.mux != nil {
		_, pattern = l.mux.Handler(r)
	}
	if pattern != "" {
		return l.routes.pattern(pattern)
	}
	var buf [MaxRouteBytes + 8]byte
	return l.routes.path(appendRoute(buf[:0], r.URL.Path))
}
