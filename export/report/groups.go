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

// where returns the innermost frame of call-tree node n's stack, the
// place a group's signature names: a wait reason such as "[select]", or
// a function.
func (p *Profile) where(n int32) string {
	if n <= 0 {
		return "(no stack)"
	}
	return p.Names[p.Frames[p.Nodes[n].Frame].Function].Func
}

// signatureKey returns the function-level stack of call-tree node n, its
// functions' ids outermost first, as a map key.
func (p *Profile) signatureKey(n int32) string {
	var key []byte
	for ; n > 0; n = p.Nodes[n].Parent {
		fn := p.Frames[p.Nodes[n].Frame].Function
		key = append(key, byte(fn), byte(fn>>8), byte(fn>>16), byte(fn>>24))
	}
	return string(key)
}

// group puts every goroutine in its group (returned per goroutine, -1
// for groups past Options.Groups) and fills p.Groups, busiest first, then
// the runtime group. The groups are gogroup's: by start function, named
// by a.names; a group's Where is the innermost frame of the signature its
// members spent most samples in (each member's own, weighed by its
// samples, then its busy samples).
func (a *aggregator) group() []int32 {
	p := a.p
	byFunc := make(map[int32]int) // start function -> group, before ranking
	var all []Group
	rt, none := -1, -1 // the runtime group and that of goroutines without code, in all
	of := make([]int32, len(a.gors))
	type sigVote struct {
		group int
		key   string
	}
	sigs := make(map[int32]string) // vote node -> signature key
	type load struct{ samples, busy uint64 }
	weight := make(map[sigVote]load)
	where := make(map[sigVote]int32) // a node of the signature
	for i := range a.gors {
		g := &a.gors[i]
		var gi int
		switch {
		case g.runtime && !p.Options.Runtime:
			if rt < 0 {
				rt = len(all)
				all = append(all, Group{Entry: RuntimeGroup, Runtime: true})
			}
			join(&all[rt], g)
			of[i] = int32(rt)
			continue
		case !g.started:
			if none < 0 {
				none = len(all)
				all = append(all, Group{Entry: "(no stack)"})
			}
			gi = none
		default:
			var ok bool
			if gi, ok = byFunc[g.start.Func]; !ok {
				gi = len(all)
				byFunc[g.start.Func] = gi
				all = append(all, Group{Entry: a.names.Name(g.start.Func)})
			}
		}
		of[i] = int32(gi)
		join(&all[gi], g)
		v := max(g.vote.best(), 0)
		key, ok := sigs[v]
		if !ok {
			key = p.signatureKey(v)
			sigs[v] = key
		}
		sv := sigVote{gi, key}
		w := weight[sv]
		for _, c := range g.states {
			w.samples += uint64(c)
		}
		w.busy += busy(&g.states)
		weight[sv] = w
		if _, ok := where[sv]; !ok {
			where[sv] = v
		}
	}
	best := make([]load, len(all))
	for sv, l := range weight {
		w, b := p.where(where[sv]), best[sv.group]
		gr := &all[sv.group]
		if c := cmp.Or(cmp.Compare(l.samples, b.samples), cmp.Compare(l.busy, b.busy), strings.Compare(gr.Where, w)); gr.Where == "" || c > 0 {
			gr.Where, best[sv.group] = w, l
		}
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
