package httpprof

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// FuzzRoute derives routes from arbitrary paths: each is valid UTF-8 of
// at most MaxRouteBytes, the same from the same path, and a path without
// ids and within the bounds is its own route.
func FuzzRoute(f *testing.F) {
	for _, p := range []string{"", "/", "/users/42", "/a//b/", "/x/550e8400-e29b-41d4-a716-446655440000",
		"/" + strings.Repeat("é", 100), "/a\xff/b", "*", "/0123456789abcdef/1", "/x\nforged;main.evil 999\ny\r\x7f"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		var buf [MaxRouteBytes + 8]byte
		rt := string(appendRoute(buf[:0], path))
		if !utf8.ValidString(rt) || len(rt) > MaxRouteBytes {
			t.Fatalf("route %q of %q: %d bytes, valid %v", rt, path, len(rt), utf8.ValidString(rt))
		}
		if strings.ContainsFunc(rt, isControl) {
			t.Fatalf("route %q of %q holds a control character", rt, path)
		}
		if again := string(appendRoute(nil, path)); again != rt {
			t.Fatalf("route of %q: %q, then %q", path, rt, again)
		}
		// Whether the path has ids is the path's to say: a route that
		// grows past the bound as ids become "{id}" is cut, perhaps before
		// its first "{id}".
		hasID := false
		for seg := range strings.SplitSeq(path, "/") {
			hasID = hasID || isID(seg)
		}
		if path != "" && len(path) <= MaxRouteBytes && utf8.ValidString(path) && !hasID && !strings.ContainsFunc(path, isControl) && rt != path {
			t.Fatalf("route of %q, without ids: %q", path, rt)
		}
	})
}

// TestRouteTableConcurrent derives routes from many paths at once: each
// request gets its path's route or OtherRoute, and the table holds at
// most MaxRoutes derived routes.
func TestRouteTableConcurrent(t *testing.T) {
	var tab routeTable
	tab.m.Store(&map[string]*route{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range MaxRoutes {
				path := fmt.Sprintf("/p%d", (i*8+g)%(2*MaxRoutes))
				rt := tab.path(appendRoute(nil, path))
				var name string
				for _, l := range []string{path, OtherRoute} {
					if rt == (*tab.m.Load())[l] {
						name = l
					}
				}
				if name == "" {
					t.Errorf("%s: a route of neither its path nor %s", path, OtherRoute)
				}
			}
		})
	}
	wg.Wait()
	if n := len(*tab.m.Load()); tab.derived != MaxRoutes || n != MaxRoutes+1 {
		t.Errorf("%d derived routes, %d in the table; want %d and OtherRoute", tab.derived, n, MaxRoutes)
	}
}

// isControl reports whether r is an ASCII control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// TestRouteControlCharacters: a path is the client's, and a %0A in it is a
// line break in r.URL.Path; derived routes hold none, so that a client
// cannot write lines into a reader of the labels, such as tachyon
// collapsed --labels (names as the file has them).
func TestRouteControlCharacters(t *testing.T) {
	got := string(appendRoute(nil, "/x\nforged;main.evil 999\ny\r\t\x7f/42"))
	if want := "/x_forged;main.evil 999_y___/{id}"; got != want {
		t.Fatalf("route %q, want %q", got, want)
	}
}
