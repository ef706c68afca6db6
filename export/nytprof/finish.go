package nytprof

import (
	"sort"
)

// lineAgg is the time charged to one line: ticks over count statements,
// the times goroutines arrived at the line (a stack's arrivals).
type lineAgg struct {
	key   lineKey
	ticks uint64
	count uint64
}

// result is the aggregated profile, ready to write.
type result struct {
	files []fileEntry // in fid order
	fidOf []uint32    // model file index -> fid
	subs  []int32     // model sub indices sorted by name
	lines []lineAgg   // sorted by fid, line
	nodes []callNode  // node 0 is the virtual root
	edges []edgeEntry // sorted
	total uint64      // ticks of all counted samples with frames
}

// finish turns the samples taken into the result to write, in phases:
// number the files, name and order the subs, charge each distinct stack's
// time to its edges, call-tree path and line, then order the lines and
// the edges as the file lists them.
func (m *model) finish() *result {
	r := &result{total: m.samples * m.w}
	m.numberFiles(r)
	m.orderSubs(r)
	m.foldStacks(r)
	r.sortLines()
	m.orderEdges(r)
	return r
}

// numberFiles gives the files their fids: sorted by name, numbered 1..N.
func (m *model) numberFiles(r *result) {
	order := make([]int32, len(m.files))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return m.files[order[a]].name < m.files[order[b]].name })
	r.fidOf = make([]uint32, len(m.files))
	for i, fi := range order {
		r.fidOf[fi] = uint32(i + 1)
		fe := m.files[fi]
		fe.fid = uint32(i + 1)
		r.files = append(r.files, fe)
	}
}

// orderSubs names the subs, lists them by name in r.subs and settles
// their line ranges: a known declaration line is the first line, and the
// last is never before the first.
func (m *model) orderSubs(r *result) {
	m.nameSubs()
	r.subs = make([]int32, len(m.subs))
	for i := range r.subs {
		r.subs[i] = int32(i)
	}
	sort.Slice(r.subs, func(a, b int) bool { return m.subs[r.subs[a]].name < m.subs[r.subs[b]].name })
	for i := range m.subs {
		s := &m.subs[i]
		if s.decl > 0 {
			s.first = s.decl
		}
		if s.last < s.first {
			s.last = s.first
		}
	}
}

// foldStacks charges each distinct stack's time (its samples times the
// sample weight) to its edges, to its path in the call tree (r.nodes) and
// to the line it was sampled at (r.lines, in order of first charge).
func (m *model) foldStacks(r *result) {
	nest := make([]int32, len(m.subs))
	tree := newCallTree()
	lines := lineTimes{idx: map[lineKey]int32{}}
	for si := range m.stacks {
		st := &m.stacks[si]
		w := st.count * m.w
		m.chargeEdges(st, w, nest)
		m.chargePath(tree, st, w)
		if lk, ok := m.sampledLine(st); ok {
			lines.add(lk, w, st.arrivals)
		}
	}
	r.nodes, r.lines = tree.nodes, lines.lines
}

// chargeEdges adds a stack's time w to its edges: to the inclusive time of
// each sub's outermost activation, to the recursive time and depth of the
// activations inside it, and to the exclusive time of the innermost edge.
// nest, indexed by sub, counts the activations; it is all zero between
// calls.
func (m *model) chargeEdges(st *stackEntry, w uint64, nest []int32) {
	for i, c := range st.canon {
		sub := m.canons[c].sub
		nest[sub]++
		e := &m.edges[st.edges[i]]
		if d := nest[sub]; d == 1 {
			e.incl += w
		} else {
			e.reci += w
			e.recDepth = max(e.recDepth, uint32(d-1))
		}
	}
	for _, c := range st.canon {
		nest[m.canons[c].sub] = 0
	}
	m.edges[st.edges[len(st.edges)-1]].excl += w
}

// chargePath adds a stack's time w to the inclusive time of each node on
// its path of subs in the call tree, and to the exclusive time of the last.
func (m *model) chargePath(t *callTree, st *stackEntry, w uint64) {
	node := int32(0)
	for _, c := range st.canon {
		node = t.child(node, m.canons[c].sub)
		t.nodes[node].incl += w
	}
	t.nodes[node].excl += w
}

// sampledLine returns the line a stack's time goes to in the line view:
// that of its innermost frame with a usable line; ok is false if none has.
func (m *model) sampledLine(st *stackEntry) (k lineKey, ok bool) {
	for i := len(st.canon) - 1; i >= 0; i-- {
		cf := m.canons[st.canon[i]]
		if cf.line != 0 {
			return lineKey{m.subs[cf.sub].file, cf.line}, true
		}
	}
	return lineKey{}, false
}

// lineTimes sums the ticks and statements charged to each line.
type lineTimes struct {
	lines []lineAgg
	idx   map[lineKey]int32 // index into lines
}

func (t *lineTimes) add(k lineKey, ticks, count uint64) {
	i, ok := t.idx[k]
	if !ok {
		i = int32(len(t.lines))
		t.lines = append(t.lines, lineAgg{key: k})
		t.idx[k] = i
	}
	t.lines[i].ticks += ticks
	t.lines[i].count += count
}

// sortLines orders the line times by fid, then line.
func (r *result) sortLines() {
	sort.Slice(r.lines, func(a, b int) bool {
		fa, fb := r.fidOf[r.lines[a].key.file], r.fidOf[r.lines[b].key.file]
		if fa != fb {
			return fa < fb
		}
		return r.lines[a].key.line < r.lines[b].key.line
	})
}

// orderEdges copies the edges into r, resolving "first line" call sites
// to the caller's first line (the callee's for a root edge), and sorts
// them by callee name, site file, site line and caller name.
func (m *model) orderEdges(r *result) {
	r.edges = append([]edgeEntry(nil), m.edges...)
	for i := range r.edges {
		k := &r.edges[i].key
		if k.line < 0 {
			if k.caller < 0 {
				k.line = m.subs[k.callee].first
			} else {
				k.line = m.subs[k.caller].first
			}
		}
	}
	sort.Slice(r.edges, func(a, b int) bool {
		ka, kb := r.edges[a].key, r.edges[b].key
		if na, nb := m.subs[ka.callee].name, m.subs[kb.callee].name; na != nb {
			return na < nb
		}
		fa, fb := r.fidOf[m.siteFile(ka)], r.fidOf[m.siteFile(kb)]
		if fa != fb {
			return fa < fb
		}
		if ka.line != kb.line {
			return ka.line < kb.line
		}
		return m.callerName(ka) < m.callerName(kb)
	})
}

// siteFile is the file of an edge's call site: the caller's file, or the
// callee's for a root edge.
func (m *model) siteFile(k edgeKey) int32 {
	if k.caller < 0 {
		return m.subs[k.callee].file
	}
	return m.subs[k.caller].file
}

func (m *model) callerName(k edgeKey) string {
	if k.caller < 0 {
		return runtimeCaller
	}
	return m.subs[k.caller].name
}

// nameSubs gives every sub a unique NYTProf name: subName of its symbol,
// then "@<file>" and finally "#<n>" appended on a clash.
func (m *model) nameSubs() {
	order := make([]int32, len(m.subs))
	base := make([]string, len(m.subs))
	for i := range m.subs {
		order[i] = int32(i)
		base[i] = subName(m.subs[i].sym)
	}
	sort.Slice(order, func(a, b int) bool {
		ia, ib := order[a], order[b]
		if base[ia] != base[ib] {
			return base[ia] < base[ib]
		}
		return m.files[m.subs[ia].file].name < m.files[m.subs[ib].file].name
	})
	taken := map[string]bool{runtimeCaller: true}
	for _, i := range order {
		name := base[i]
		if taken[name] {
			name = base[i] + "@" + sanitize(m.files[m.subs[i].file].name)
			for n := 2; taken[name]; n++ {
				name = base[i] + "@" + sanitize(m.files[m.subs[i].file].name) + "#" + itoa(n)
			}
		}
		taken[name] = true
		m.subs[i].name = name
	}
}
