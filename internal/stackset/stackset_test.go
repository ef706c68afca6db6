package stackset

import (
	"slices"
	"testing"
)

// TestStackSet: a stack is its holder's own while it changes, written
// over in place; once shared it is held once for all that have it, and
// let go after the last; one whose hash another stack has stays its
// holder's own.
func TestStackSet(t *testing.T) {
	ss := New()
	a, b := []uint32{1, 2, 3}, []uint32{1, 2, 4, 5}
	x := ss.Own(nil, a)
	if y := ss.Own(x, b); y != x || !slices.Equal(x.frames, b) || ss.frames != 4 {
		t.Fatalf("own over its own: %p for %p, %v, %d frames held", y, x, x.frames, ss.frames)
	}
	x = ss.Share(x)
	y := ss.Share(ss.Own(nil, b))
	if y != x || x.refs != 2 || !x.listed || ss.frames != 4 {
		t.Fatalf("two holders of one stack: %p and %p, %+v, %d frames held", x, y, *x, ss.frames)
	}
	z := ss.Own(y, a) // y moves on: x is not written over
	if z == x || !slices.Equal(x.frames, b) || x.refs != 1 || ss.frames != 7 {
		t.Fatalf("a holder of a shared stack moves on: %+v, %d frames held", *x, ss.frames)
	}
	ss.Drop(x)
	ss.Drop(z)
	if len(ss.byHash) != 0 || ss.frames != 0 {
		t.Fatalf("all let go: %d listed, %d frames held", len(ss.byHash), ss.frames)
	}
	// A hash another stack has: the new one stays its holder's own.
	c := ss.Share(ss.Own(nil, []uint32{9, 9}))
	c.frames = []uint32{7, 7} // as if another stack had the hash of 9, 9
	d := ss.Share(ss.Own(nil, []uint32{9, 9}))
	if d == c || d.listed || ss.byHash[c.hash] != c {
		t.Fatalf("a stack of a taken hash: %+v", *d)
	}
	ss.Drop(d)
	if ss.byHash[c.hash] != c {
		t.Fatalf("letting go of the unshared stack unlisted the other")
	}
}
