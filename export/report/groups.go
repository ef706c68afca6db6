package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/tachyon"
)

// busy returns the samples of states that use or want a CPU (busyState:
// running and runnable; a system call is in the kernel, most often
// blocked there). Lanes and groups are ranked by it, never by all
// samples, which in a wall profile every goroutine has about as many of.
func busy[T uint32 | uint64](s *[tachyon.NumStates]T) uint64 {
	var n uint64
	for st, c := range s {
		if busyState(tachyon.State(st)) {
			n += uint64(c)
		}
	}
	return n
}

// signature is a stack signature: the function-level stack of a call-tree
// node, its entry function and its innermost frame.
type signature struct {
	key   string // the functions' ids, outermost first
	entry string
	where string
}

// signatureOf returns the signature of call-tree node n.
func (p *Profile) signatureOf(n int32) signature {
	var path []int32 // frames, innermost first
	for ; n > 0; n = p.Nodes[n].Parent {
		path = append(path, p.Nodes[n].Frame)
	}
	slices.Reverse(path)
	if len(path) == 0 {
		return signature{entry: "(no stack)", where: "(no stack)"}
	}
	var key strings.Builder
	for _, fr := range path {
		fn := p.Frames[fr].Function
		key.Write([]byte{byte(fn), byte(fn >> 8), byte(fn >> 16), byte(fn >> 24)})
	}
	return signature{key: key.String(), entry: p.entryOf(path), where: p.Frames[path[len(path)-1]].Func}
}

// entryOf returns the entry function of a stack (frames outermost first,
// not empty): its outermost frame outside package runtime that is not a
// synthetic frame (a wait reason, tachyon.RuntimeRoot, ...), or the
// function a go statement's closure calls in place of the closure; when
// every frame is the runtime's, the outermost that is not synthetic, else
// the outermost.
func (p *Profile) entryOf(path []int32) string {
	synthetic := func(fr int32) bool {
		f := p.Frames[fr]
		return tachyon.Synthetic(tachyon.Frame{File: f.File, Func: f.Func, Line: f.Line})
	}
	skip := func(fr int32) bool {
		return synthetic(fr) || strings.HasPrefix(p.Frames[fr].Func, "runtime.")
	}
	for i, fr := range path {
		if skip(fr) {
			continue
		}
		if isClosure(p.Frames[fr].Func) && i+1 < len(path) && !skip(path[i+1]) {
			return p.Frames[path[i+1]].Func
		}
		return p.Frames[fr].Func
	}
	for _, fr := range path {
		if !synthetic(fr) {
			return p.Frames[fr].Func
		}
	}
	return p.Frames[path[0]].Func
}

// isClosure reports whether fn names a function literal or a go
// statement's wrapper: its last element is funcN or gowrapN (then perhaps
// .M for a nested one).
func isClosure(fn string) bool {
	for {
		i := strings.LastIndexByte(fn, '.')
		if i < 0 {
			return false
		}
		last := fn[i+1:]
		if digits(last) {
			fn = fn[:i]
			continue
		}
		for _, p := range []string{"func", "gowrap"} {
			if n, ok := strings.CutPrefix(last, p); ok && digits(n) {
				return true
			}
		}
		return false
	}
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// group puts every goroutine in its group (returned per goroutine, -1
// for groups past Options.Groups) and fills p.Groups, busiest first, then
// the runtime group.
func (a *aggregator) group() []int32 {
	p := a.p
	sigs := make(map[int32]int) // vote node -> group, before ranking
	byKey := make(map[string]int)
	var all []Group
	rt := -1 // the runtime group in all
	of := make([]int32, len(a.gors))
	for i := range a.gors {
		g := &a.gors[i]
		if g.runtime && !p.Options.Runtime {
			if rt < 0 {
				rt = len(all)
				all = append(all, Group{Entry: RuntimeGroup, Runtime: true})
			}
			join(&all[rt], g)
			of[i] = int32(rt)
			continue
		}
		v := max(g.vote.best(), 0)
		gi, ok := sigs[v]
		if !ok {
			s := p.signatureOf(v)
			if gi, ok = byKey[s.key]; !ok {
				gi = len(all)
				byKey[s.key] = gi
				all = append(all, Group{Entry: s.entry, Where: s.where})
			}
			sigs[v] = gi
		}
		of[i] = int32(gi)
		join(&all[gi], g)
	}
	rank := make([]int, len(all))
	for i := range all {
		all[i].Busy = busy(&all[i].States)
		rank[i] = i
	}
	slices.SortFunc(rank, func(x, y int) int {
		a, b := &all[x], &all[y]
		return cmp.Or(cmp.Compare(b2i(a.Runtime), b2i(b.Runtime)),
			cmp.Compare(b.Busy, a.Busy), cmp.Compare(b.States[tachyon.Running], a.States[tachyon.Running]),
			cmp.Compare(b.Goroutines, a.Goroutines),
			strings.Compare(a.Entry, b.Entry), strings.Compare(a.Where, b.Where))
	})
	p.GroupCount = len(all)
	newIndex := make([]int32, len(all))
	for r, gi := range rank {
		newIndex[gi] = -1
		if r < p.Options.Groups || all[gi].Runtime {
			newIndex[gi] = int32(len(p.Groups))
			p.Groups = append(p.Groups, all[gi])
		}
	}
	for i, gi := range of {
		of[i] = newIndex[gi]
	}
	return of
}

// join adds goroutine g to group gr.
func join(gr *Group, g *goroutine) {
	gr.Goroutines++
	for s, n := range g.states {
		gr.States[s] += uint64(n)
		gr.Samples += uint64(n)
	}
}

// b2i returns 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lanes chooses the goroutines with a lane: the busiest member of each
// group in rank order, then the second busiest of each, and so on, up to
// Options.Goroutines. It fills p.Lanes (group by group) and each group's
// Lanes, and returns the lane of every goroutine, -1 for none.
func (a *aggregator) lanes(groupOf []int32) []int32 {
	p := a.p
	members := make([][]int32, len(p.Groups))
	for i, g := range groupOf {
		if g >= 0 {
			members[g] = append(members[g], int32(i))
		}
	}
	take := make([]int, len(p.Groups))
	for left, round := p.Options.Goroutines, 0; left > 0; round++ {
		more := false
		for g := range members {
			if left > 0 && round < len(members[g]) {
				take[g]++
				left--
				more = true
			}
		}
		if !more {
			break
		}
	}
	laneOf := make([]int32, len(a.gors))
	for i := range laneOf {
		laneOf[i] = -1
	}
	for g, ms := range members {
		slices.SortFunc(ms, func(x, y int32) int {
			a, b := &a.gors[x], &a.gors[y]
			return cmp.Or(cmp.Compare(busy(&b.states), busy(&a.states)),
				cmp.Compare(a.key.ID, b.key.ID), cmp.Compare(a.key.Interp, b.key.Interp))
		})
		for _, m := range ms[:take[g]] {
			gr := &a.gors[m]
			laneOf[m] = int32(len(p.Lanes))
			p.Groups[g].Lanes = append(p.Groups[g].Lanes, len(p.Lanes))
			l := Lane{Goroutine: gr.key.ID, Interpreter: gr.key.Interp, Group: g,
				Busy: busy(&gr.states), Entry: p.Groups[g].Entry}
			for s, n := range gr.states {
				l.States[s] = uint64(n)
				l.Samples += uint64(n)
			}
			p.Lanes = append(p.Lanes, l)
		}
	}
	return laneOf
}
