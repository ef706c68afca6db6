package nytprof

import (
	"sort"
)

type lineAgg struct {
	key   lineKey
	ticks uint64
	count uint64
}

// callNode is a node of the call tree (by sub path) used for SUB_RETURN.
type callNode struct {
	sub              int32
	incl, excl       uint64
	firstChild, next int32
	lastChild        int32
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

func (m *model) finish() *result {
	r := &result{total: m.samples * m.w}

	// fids: files sorted by name, numbered 1..N.
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

	// Times per distinct stack.
	nest := make([]int32, len(m.subs))
	lineIdx := map[lineKey]int32{}
	r.nodes = []callNode{{sub: -1, firstChild: -1, next: -1, lastChild: -1}}
	child := map[[2]int32]int32{}
	for si := range m.stacks {
		st := &m.stacks[si]
		W := st.count * m.w
		node := int32(0)
		for i, c := range st.canon {
			sub := m.canons[c][0]
			nest[sub]++
			e := &m.edges[st.edges[i]]
			if d := nest[sub]; d == 1 {
				e.incl += W
			} else {
				e.reci += W
				if uint32(d-1) > e.recDepth {
					e.recDepth = uint32(d - 1)
				}
			}
			ck := [2]int32{node, sub}
			nx, ok := child[ck]
			if !ok {
				nx = int32(len(r.nodes))
				r.nodes = append(r.nodes, callNode{sub: sub, firstChild: -1, next: -1, lastChild: -1})
				p := &r.nodes[node]
				if p.lastChild < 0 {
					p.firstChild = nx
				} else {
					r.nodes[p.lastChild].next = nx
				}
				p.lastChild = nx
				child[ck] = nx
			}
			node = nx
			r.nodes[node].incl += W
		}
		r.nodes[node].excl += W
		for _, c := range st.canon {
			nest[m.canons[c][0]] = 0
		}
		m.edges[st.edges[len(st.edges)-1]].excl += W
		for i := len(st.canon) - 1; i >= 0; i-- {
			cp := m.canons[st.canon[i]]
			if cp[1] == 0 {
				continue
			}
			lk := lineKey{m.subs[cp[0]].file, cp[1]}
			li, ok := lineIdx[lk]
			if !ok {
				li = int32(len(r.lines))
				r.lines = append(r.lines, lineAgg{key: lk})
				lineIdx[lk] = li
			}
			r.lines[li].ticks += W
			r.lines[li].count += st.count
			break
		}
	}
	sort.Slice(r.lines, func(a, b int) bool {
		fa, fb := r.fidOf[r.lines[a].key.file], r.fidOf[r.lines[b].key.file]
		if fa != fb {
			return fa < fb
		}
		return r.lines[a].key.line < r.lines[b].key.line
	})

	// Edges: resolve "first line" sites, sort by callee, site, caller.
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
	return r
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

// nameSubs gives every sub a unique NYTProf name: SubName of its symbol,
// then "@<file>" and finally "#<n>" appended on a clash.
func (m *model) nameSubs() {
	order := make([]int32, len(m.subs))
	base := make([]string, len(m.subs))
	for i := range m.subs {
		order[i] = int32(i)
		base[i] = SubName(m.subs[i].sym)
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
			name = base[i] + "@" + Sanitize(m.files[m.subs[i].file].name)
			for n := 2; taken[name]; n++ {
				name = base[i] + "@" + Sanitize(m.files[m.subs[i].file].name) + "#" + itoa(n)
			}
		}
		taken[name] = true
		m.subs[i].name = name
	}
}
