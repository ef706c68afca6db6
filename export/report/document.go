package report

import (
	"cmp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/gotachyon/profiler/tachyon"
)

// document is the JSON the page reads. Strings are interned. Frames are
// (func, file, line, function) quadruples: string indices, a line and an
// id equal for the frames of one function. The tree is (frame, child
// count, cell count) triples in preorder, children by total (largest
// first); the root's frame is -1 and a node standing for the cut-off
// children of its parent has frame -2. Cells are (key, samples) pairs, a
// node's after its predecessor's, where key is class*slices + slice.
type document struct {
	Meta    meta       `json:"meta"`
	Strings []string   `json:"strings"`
	Frames  []int64    `json:"frames"`
	Tree    []int64    `json:"tree"`
	Cells   []uint64   `json:"cells"`
	Groups  []docGroup `json:"groups"`
	Lanes   []lane     `json:"lanes"`
	Labels  *docLabels `json:"labels,omitempty"` // only when samples carry labels
	Leaks   *docLeaks  `json:"leaks,omitempty"`  // only with goroutines blocked through the last slice
}

type meta struct {
	Title        string                    `json:"title"`
	Samples      uint64                    `json:"samples"`
	Goroutines   int                       `json:"goroutines"`
	Groups       int                       `json:"groups"`
	StartTime    uint64                    `json:"startTime"`
	Interval     uint64                    `json:"interval"`
	Duration     uint64                    `json:"duration"`
	Mode         string                    `json:"mode"`
	ModeInferred bool                      `json:"modeInferred"`
	Backend      string                    `json:"backend"`
	States       [tachyon.NumStates]uint64 `json:"states"`
	StateNames   []string                  `json:"stateNames"`
	Views        []string                  `json:"views"`
	ViewSamples  []uint64                  `json:"viewSamples"`
	ViewClasses  []uint32                  `json:"viewClasses"` // per view, a bit per Class
	BusyStates   []int                     `json:"busyStates"`  // the states busy counts
	DefaultView  int                       `json:"defaultView"`
	RuntimeRoot  string                    `json:"runtimeRoot"`
	NoCPUSample  string                    `json:"noCPUSample"`
	Slices       int                       `json:"slices"`
	SliceUs      uint64                    `json:"sliceUs"`
	T0           int64                     `json:"t0"` // the first slice's start after the first sample's time, µs (≤ 0)
	Buckets      int                       `json:"buckets"`
	BucketUs     float64                   `json:"bucketUs"`
	Nodes        int                       `json:"nodes"`
	NodesShown   int                       `json:"nodesShown"`
	Functions    int                       `json:"functions"`
	MaxFunctions int                       `json:"maxFunctions"`
}

// docGroup is a group's lane: Cells are (key, samples) pairs, key
// state*slices + slice.
type docGroup struct {
	Entry   string                    `json:"entry"`
	Where   string                    `json:"where"`
	N       int                       `json:"n"`
	Samples uint64                    `json:"samples"`
	States  [tachyon.NumStates]uint64 `json:"states"`
	Busy    uint64                    `json:"busy"`
	Runtime bool                      `json:"runtime,omitempty"`
	Lanes   []int                     `json:"lanes"`
	Mix     [tachyon.NumStates]string `json:"mix"`
	Cells   []uint64                  `json:"cells"`
}

type lane struct {
	G        string                    `json:"g"` // a string: ids may exceed 2^53
	Group    int                       `json:"group"`
	Samples  uint64                    `json:"n"`
	States   [tachyon.NumStates]uint64 `json:"states"`
	Busy     uint64                    `json:"busy"`
	Entry    string                    `json:"entry"`
	Timeline string                    `json:"t"`
}

// maxString is the most bytes of a name the page shows: a hostile file
// can name a function with a megabyte.
const maxString = 1000

type interner struct {
	ids  map[string]int64
	list []string
}

func (in *interner) id(s string) int64 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := int64(len(in.list))
	in.ids[s] = id
	in.list = append(in.list, clip(s))
	return id
}

// clip cuts s to maxString bytes at a rune boundary, marking the cut.
func clip(s string) string {
	if len(s) <= maxString {
		return s
	}
	n := maxString
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// document returns the page's data with the call-tree nodes in keep (a
// prefix of nodeOrder, so a tree).
func (p *Profile) document(keep []int32) *document {
	d := &document{Meta: p.meta()}
	in := &interner{ids: make(map[string]int64)}
	var sets []uint16
	d.Tree, d.Cells, sets, d.Frames = p.tree(keep, in)
	d.Meta.NodesShown = len(d.Tree) / 3
	if p.Labelled() {
		d.Labels = p.docLabels(in, sets)
	}
	d.Groups = p.docGroups(in)
	d.Leaks = p.docLeaks(in)
	for _, l := range p.Lanes {
		d.Lanes = append(d.Lanes, lane{
			G: goroutineName(l), Group: l.Group, Samples: l.Samples, States: l.States,
			Busy: l.Busy, Entry: clip(l.Entry), Timeline: l.Timeline,
		})
	}
	d.Strings = in.list
	return d
}

// meta returns the page's facts.
func (p *Profile) meta() meta {
	m := meta{
		Title:        p.Options.Title,
		Samples:      p.Samples,
		Goroutines:   p.Goroutines,
		Groups:       p.GroupCount,
		StartTime:    p.StartTime,
		Interval:     p.Interval,
		Duration:     p.End - p.First,
		Backend:      p.Options.Backend,
		States:       p.States,
		DefaultView:  int(p.DefaultView()),
		RuntimeRoot:  tachyon.RuntimeRoot,
		NoCPUSample:  tachyon.NoCPUSample,
		Slices:       p.Slices,
		SliceUs:      p.SliceWidth,
		Buckets:      p.Buckets,
		BucketUs:     p.BucketWidth(),
		Nodes:        len(p.Nodes),
		Functions:    len(p.Functions),
		MaxFunctions: p.Options.MaxFunctions,
	}
	m.T0 = -int64(min(p.First-min(p.Origin, p.First), 1<<53))
	m.Mode, m.ModeInferred = p.Mode()
	for s := range tachyon.State(tachyon.NumStates) {
		m.StateNames = append(m.StateNames, s.String())
		if busyState(s) {
			m.BusyStates = append(m.BusyStates, int(s))
		}
	}
	for v := range ViewAll + 1 {
		m.Views = append(m.Views, v.String())
		m.ViewSamples = append(m.ViewSamples, p.ViewSamples(v))
		m.ViewClasses = append(m.ViewClasses, v.Classes())
	}
	return m
}

// nodeOrder returns the call tree's nodes from the heaviest, ties in
// index order: a parent is never lighter than its child and comes first,
// so every prefix is a tree.
func (p *Profile) nodeOrder() []int32 {
	order := make([]int32, len(p.Nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(p.Nodes[b].Total, p.Nodes[a].Total), cmp.Compare(a, b))
	})
	return order
}

// tree returns the embedded tree, its cells, the label set of each cell
// and its frames: the nodes in keep, each kept node's cut-off descendants
// merged into one node of frame -2.
func (p *Profile) tree(keep []int32, in *interner) (tree []int64, cells []uint64, sets []uint16, frames []int64) {
	n := len(p.Nodes)
	kept := make([]bool, n)
	for _, i := range keep {
		kept[i] = true
	}
	kept[0] = true
	// The cells of each node, and of the cut-off descendants per kept node.
	start := make([]int32, n+1)
	for _, c := range p.Cells {
		start[c.Node+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	absorb := make([]int32, n) // the kept node whose cut-off child holds node i
	cut := make(map[int32]map[uint64]uint64)
	for i := 1; i < n; i++ {
		par := p.Nodes[i].Parent
		switch {
		case kept[i]:
			continue
		case kept[par]:
			absorb[i] = par
		default:
			absorb[i] = absorb[par]
		}
		m := cut[absorb[i]]
		if m == nil {
			m = make(map[uint64]uint64)
			cut[absorb[i]] = m
		}
		for _, c := range p.Cells[start[i]:start[i+1]] {
			m[p.cellKey(c)<<16|uint64(c.LabelSet)] += c.N
		}
	}
	kids := make(map[int32][]int32)
	for i := 1; i < n; i++ {
		if kept[i] {
			kids[p.Nodes[i].Parent] = append(kids[p.Nodes[i].Parent], int32(i))
		}
	}
	frameIDs := make(map[int32]int64)
	frameID := func(fr int32) int64 {
		if id, ok := frameIDs[fr]; ok {
			return id
		}
		id := int64(len(frameIDs))
		frameIDs[fr] = id
		f := p.Frames[fr]
		n := p.Names[f.Function]
		frames = append(frames, in.id(n.Func), in.id(n.File), int64(f.Line), int64(f.Function))
		return id
	}
	// Preorder, children by total; the cut-off node after them.
	stk := []int32{0} // -1-i: the cut-off node of node i
	for len(stk) > 0 {
		i := stk[len(stk)-1]
		stk = stk[:len(stk)-1]
		if i < 0 {
			m := cut[-1-i]
			tree = append(tree, -2, 0, int64(len(m)))
			cells, sets = appendCut(cells, sets, m)
			continue
		}
		ks := kids[i]
		slices.SortFunc(ks, func(a, b int32) int {
			return cmp.Or(cmp.Compare(p.Nodes[b].Total, p.Nodes[a].Total), cmp.Compare(a, b))
		})
		fr := int64(-1)
		if i != 0 {
			fr = frameID(p.Nodes[i].Frame)
		}
		nk := len(ks)
		if cut[i] != nil {
			nk++
			stk = append(stk, -1-i)
		}
		tree = append(tree, fr, int64(nk), int64(start[i+1]-start[i]))
		for _, c := range p.Cells[start[i]:start[i+1]] {
			cells = append(cells, p.cellKey(c), c.N)
			sets = append(sets, c.LabelSet)
		}
		for k := len(ks) - 1; k >= 0; k-- {
			stk = append(stk, ks[k])
		}
	}
	return tree, cells, sets, frames
}

// cellKey returns a cell's key in the page: class*slices + slice.
func (p *Profile) cellKey(c Cell) uint64 {
	return uint64(c.Class)*uint64(p.Slices) + uint64(c.Slice)
}

// appendCut appends the cells of a cut-off node, m's (key<<16 | label
// set, samples) pairs, by key and set, to cells and their sets to sets.
func appendCut(cells []uint64, sets []uint16, m map[uint64]uint64) ([]uint64, []uint16) {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cells = append(cells, k>>16, m[k])
		sets = append(sets, uint16(k))
	}
	return cells, sets
}

// docGroups returns the groups' lanes.
func (p *Profile) docGroups(in *interner) []docGroup {
	out := make([]docGroup, 0, len(p.Groups))
	for _, g := range p.Groups {
		dg := docGroup{Entry: clip(g.Entry), Where: clip(g.Where), N: g.Goroutines, Samples: g.Samples,
			States: g.States, Busy: g.Busy, Runtime: g.Runtime, Lanes: g.Lanes, Mix: g.Mix, Cells: []uint64{}}
		if dg.Lanes == nil {
			dg.Lanes = []int{}
		}
		for k, n := range g.Cells {
			if n > 0 {
				dg.Cells = append(dg.Cells, uint64(k), n)
			}
		}
		out = append(out, dg)
	}
	return out
}

// goroutineName names a lane: its goroutine id, and the interpreter id when
// it is not 0 (profiles not written by the Go sampler).
func goroutineName(l Lane) string {
	g := strconv.FormatUint(l.Goroutine, 10)
	if l.Interpreter != 0 {
		g += "/" + strconv.FormatUint(uint64(l.Interpreter), 10)
	}
	return g
}
