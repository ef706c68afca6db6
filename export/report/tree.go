package report

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// sumTotals sets each node's Total: its Self and its children's Totals
// (a child comes after its parent).
func (p *Profile) sumTotals() {
	for i := len(p.Nodes) - 1; i >= 0; i-- {
		p.Nodes[i].Total += p.Nodes[i].Self
		if i > 0 {
			p.Nodes[p.Nodes[i].Parent].Total += p.Nodes[i].Total
		}
	}
}

// frames builds p.Frames and p.Names from f's frame table and returns the
// canonical frame of every table index.
func (p *Profile) frames(f *reader.File) (canon []int32) {
	refs := f.FrameRefs()
	canon = make([]int32, len(refs))
	p.Frames = make([]Frame, 0, len(refs)) // table entries are distinct but for duplicated strings
	// Frames are told apart by a hash of their text, checked against the
	// frame it names: a map keyed by the text itself takes 50 bytes a frame
	// more, and a file can have a million frames.
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]int32, len(refs))
	var clash map[tachyon.Frame]int32 // frames whose hash another has
	byName := make(map[Name]int32)
	for i := range refs {
		fr := f.Frame(uint32(i))
		h := maphash.Comparable(seed, fr) // by the strings' text
		id, ok := byHash[h]
		if ok && p.Frame(id) != fr {
			id, ok = clash[fr]
		}
		if !ok {
			id = int32(len(p.Frames))
			if _, taken := byHash[h]; !taken {
				byHash[h] = id
			} else {
				if clash == nil {
					clash = make(map[tachyon.Frame]int32)
				}
				clash[fr] = id
			}
			k := Name{fr.Func, fr.File}
			fn, ok := byName[k]
			if !ok {
				fn = int32(len(p.Names))
				byName[k] = fn
				p.Names = append(p.Names, k)
			}
			p.Frames = append(p.Frames, Frame{Line: fr.Line, Function: fn})
		}
		canon[i] = id
	}
	return canon
}

// Frame returns frame i of p.Frames with its function's name and file.
func (p *Profile) Frame(i int32) tachyon.Frame {
	fr := p.Frames[i]
	n := p.Names[fr.Function]
	return tachyon.Frame{File: n.File, Func: n.Func, Line: fr.Line}
}

// functions fills p.Functions from the call tree and returns them indexed
// by function id (before sorting).
func (p *Profile) functions() []Function {
	nf := len(p.Names)
	fns := make([]Function, nf)
	for i, n := range p.Names {
		fns[i].Func, fns[i].File = n.Func, n.File
	}
	for _, fr := range p.Frames {
		fn := &fns[fr.Function]
		if fr.Line > 0 && (fn.Line == 0 || fr.Line < fn.Line) {
			fn.Line = fr.Line
		}
	}
	// Depth-first walk counting a function's total once per path.
	n := len(p.Nodes)
	firstChild, next := make([]int32, n), make([]int32, n)
	for i := range firstChild {
		firstChild[i] = -1
	}
	for i := n - 1; i > 0; i-- {
		par := p.Nodes[i].Parent
		next[i], firstChild[par] = firstChild[par], int32(i)
	}
	onPath := make([]int32, nf)
	type item struct{ node, next int32 }
	stk := []item{{0, firstChild[0]}}
	for len(stk) > 0 {
		top := &stk[len(stk)-1]
		if c := top.next; c >= 0 {
			top.next = next[c]
			nd := &p.Nodes[c]
			fn := p.Frames[nd.Frame].Function
			if onPath[fn] == 0 {
				fns[fn].Total += nd.Total
			}
			onPath[fn]++
			fns[fn].Self += nd.Self
			stk = append(stk, item{c, firstChild[c]})
			continue
		}
		if top.node != 0 {
			onPath[p.Frames[p.Nodes[top.node].Frame].Function]--
		}
		stk = stk[:len(stk)-1]
	}
	p.Functions = slices.DeleteFunc(slices.Clone(fns), func(f Function) bool { return f.Total == 0 })
	slices.SortFunc(p.Functions, func(a, b Function) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(b.Self, a.Self),
			strings.Compare(a.Func, b.Func), strings.Compare(a.File, b.File))
	})
	return fns
}

// follow sets w to stack (innermost first), the code frames of a sample
// of goroutine g whose outermost kept frames are those of g's previous
// sample, walking the call tree from the deepest node shared with w's
// previous stack, and returns the leaf: the node of the innermost frame,
// the root for an empty stack.
//
// A walker that holds g's previous stack starts at its kept frames and
// pays for the frames the record changed only. Otherwise a stack followed
// before is looked up by its frames instead (its leaf node is the same
// whatever walked to it): a hostile file's records can each be 65,536
// frames deep and differ in their last frame only, and a walk from the
// root compares every frame.
func (a *aggregator) follow(w *walker, g int32, stack []uint32, kept int) int32 {
	if w.of == g+1 {
		return a.walk(w, stack, kept)
	}
	if leaf, ok := a.leaves.Get(stack); ok {
		// The walker no longer knows its way: the next walk starts at
		// the root, which a new stack pays for anyway.
		w.stack, w.path, w.of = w.stack[:0], w.path[:0], 0
		return int32(leaf)
	}
	leaf := a.walk(w, stack, 0)
	a.leaves.Put(stack, uint32(leaf))
	w.of = g + 1
	return leaf
}

// walk is follow's walk from the deepest node shared with w's previous
// stack, whose outermost from frames are known to be stack's.
func (a *aggregator) walk(w *walker, stack []uint32, from int) int32 {
	d := len(stack)
	m := min(d, len(w.stack))
	c := max(0, min(from, m))
	for c < m && a.canon[stack[d-1-c]] == w.stack[c] {
		c++
	}
	if c < d || d != len(w.stack) {
		w.stack, w.path = w.stack[:c], w.path[:c]
		parent := int32(0)
		if c > 0 {
			parent = w.path[c-1]
		}
		for k := c; k < d; k++ {
			fr := a.canon[stack[d-1-k]]
			parent = a.child(parent, fr)
			w.stack = append(w.stack, fr)
			w.path = append(w.path, parent)
		}
	}
	if d == 0 {
		return 0
	}
	return w.path[d-1]
}

// child returns the call-tree node of frame under parent, adding it when
// new.
func (a *aggregator) child(parent, frame int32) int32 {
	n, slot := a.children.find(a.p.Nodes, parent, frame)
	if n >= 0 {
		return n
	}
	n = int32(len(a.p.Nodes))
	a.p.Nodes = append(a.p.Nodes, Node{Frame: frame, Parent: parent})
	a.children.add(a.p.Nodes, n, slot)
	return n
}
