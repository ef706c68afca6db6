package httpprof

import (
	"bytes"
	"net/http"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// route is one route label with its label sets, one per method label, so
// that a request finds its labels without building them.
type route struct {
	labels [len(methods) + 1]pprof.LabelSet // by methodIndex
}

// newRoute returns the route named name.
func newRoute(name string) *route {
	rt := &route{}
	for i, m := range methods {
		rt.labels[i] = pprof.Labels(LabelRoute, name, LabelMethod, m)
	}
	rt.labels[len(methods)] = pprof.Labels(LabelRoute, name, LabelMethod, OtherMethod)
	return rt
}

// routeTable holds a handler's routes by ServeMux pattern and by route
// derived from a path. Requests read it without a lock: a new route
// replaces the map with a copy that holds it.
type routeTable struct {
	m       atomic.Pointer[map[string]*route]
	mu      sync.Mutex // held to add a route
	derived int        // routes derived from paths, at most MaxRoutes
}

// pattern returns the route of a ServeMux pattern: its path, bounded.
func (t *routeTable) pattern(p string) *route {
	if rt := (*t.m.Load())[p]; rt != nil {
		return rt
	}
	return t.add(p, bound(patternPath(p)), false)
}

// path returns the route derived from a path, rt (appendRoute's); past
// MaxRoutes such routes, a new one is OtherRoute.
func (t *routeTable) path(rt []byte) *route {
	if r := (*t.m.Load())[string(rt)]; r != nil {
		return r
	}
	name := string(rt)
	return t.add(name, name, true)
}

// add adds the route name under key, and returns it, or the route already
// there.
func (t *routeTable) add(key, name string, derived bool) *route {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := *t.m.Load()
	if rt := old[key]; rt != nil {
		return rt
	}
	if derived && t.derived >= MaxRoutes {
		if rt := old[OtherRoute]; rt != nil {
			return rt
		}
		key, name = OtherRoute, OtherRoute
	} else if derived {
		t.derived++
	}
	m := make(map[string]*route, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	rt := newRoute(name)
	m[key] = rt
	t.m.Store(&m)
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

// methodIndex returns the index of the request method m in methods, or
// len(methods) for OtherMethod.
func methodIndex(m string) int {
	if m == "" {
		return 0 // net/http's meaning of an empty method: GET
	}
	for i, k := range methods {
		if m == k {
			return i
		}
	}
	return len(methods)
}

// appendRoute appends to dst the route derived from path: each id segment
// (isID) replaced by "{id}", each ASCII control character by "_", then
// bounded as boundBytes does. It stops
// copying once the route passes MaxRouteBytes, so that a long path costs
// no more.
func appendRoute(dst []byte, path string) []byte {
	if path == "" {
		return append(dst, '/')
	}
	start := len(dst)
	for i, more := 0, true; more; i++ {
		var seg string
		seg, path, more = strings.Cut(path, "/")
		if i > 0 {
			dst = append(dst, '/')
		}
		if isID(seg) {
			dst = append(dst, "{id}"...)
		} else {
			dst = append(dst, seg...)
		}
		if len(dst)-start > MaxRouteBytes {
			break
		}
	}
	// A path is the client's: its control characters (a %0A is a line
	// break in r.URL.Path) would reach every label's reader, such as a
	// line of folded stacks, as they are.
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c < 0x20 || c == 0x7f {
			dst[i] = '_'
		}
	}
	return boundBytes(dst, start)
}

// ellipsis ends a route cut at MaxRouteBytes.
const ellipsis = "…"

// boundBytes makes dst[start:] valid UTF-8 of at most MaxRouteBytes, cut
// at a character and ended with an ellipsis if it was longer, and returns
// dst.
func boundBytes(dst []byte, start int) []byte {
	if !utf8.Valid(dst[start:]) {
		dst = append(dst[:start], bytes.ToValidUTF8(dst[start:], []byte("\uFFFD"))...)
	}
	if len(dst)-start <= MaxRouteBytes {
		return dst
	}
	cut := start + MaxRouteBytes - len(ellipsis)
	for cut > start && !utf8.RuneStart(dst[cut]) {
		cut--
	}
	return append(dst[:cut], ellipsis...)
}

// bound returns rt as boundBytes makes it.
func bound(rt string) string {
	if len(rt) <= MaxRouteBytes && utf8.ValidString(rt) {
		return rt
	}
	return string(boundBytes([]byte(rt), 0))
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
