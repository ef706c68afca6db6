package report

import (
	"github.com/gotachyon/profiler/tachyon"
	"maps"
	"slices"
)

// docLabels is the page's labels, in the page of a file whose samples
// carry labels only. Strings are ids in the document's strings.
type docLabels struct {
	Keys []int64 `json:"keys"` // sorted
	Key  int     `json:"key"`  // the key shown first, an index in Keys
	// Sets has, per label set (Profile.LabelSets), its (key, value) pairs
	// by key; Other is the index of the Other set, -1 for none.
	Sets  [][]int64 `json:"sets"`
	Other int       `json:"other"`
	// CellSets has the label set of each of the tree's cells.
	CellSets []uint16 `json:"cellSets"`
	// Classes is NumClasses, and Reasons are the wait reasons of the
	// table's columns Classes+r.
	Classes int     `json:"classes"`
	Reasons []int64 `json:"reasons"`
	// Table has the samples the views hold by label set, column and
	// slice, as (key, samples) pairs: key (set*cols + col)*slices + slice
	// with cols = Classes + len(Reasons). A column is a Class, but blocked
	// samples of wait reason r are in column Classes + r.
	Table []uint64 `json:"table"`
}

// docLabels returns the page's labels; sets has the label set of each
// tree cell the document holds.
func (p *Profile) docLabels(in *interner, sets []uint16) *docLabels {
	d := &docLabels{Other: -1, CellSets: sets, Classes: NumClasses, Sets: make([][]int64, len(p.LabelSets))}
	keys := p.LabelKeys()
	for _, k := range keys {
		d.Keys = append(d.Keys, in.id(k))
	}
	for i, s := range p.LabelSets {
		if s.Other {
			d.Other = i
		}
		d.Sets[i] = []int64{}
		for _, l := range s.Labels {
			d.Sets[i] = append(d.Sets[i], in.id(l.Key), in.id(l.Value))
		}
	}
	// The columns: the classes, then the wait reasons.
	col := make(map[int32]int) // per blocked node
	reasons := map[string]int{}
	var names []string
	perSet := make([]uint64, len(p.LabelSets))
	for _, c := range p.Cells {
		perSet[c.LabelSet] += c.N
		if _, ok := col[c.Node]; c.Class != OffCPU || ok {
			continue
		}
		r := p.waitReason(c.Node)
		if r == "" {
			col[c.Node] = int(OffCPU)
			continue
		}
		k, ok := reasons[r]
		if !ok {
			k = len(names)
			reasons[r] = k
			names = append(names, r)
		}
		col[c.Node] = NumClasses + k
	}
	for _, r := range names {
		d.Reasons = append(d.Reasons, in.id(r))
	}
	cols, ns := uint64(NumClasses+len(names)), uint64(p.Slices)
	table := map[uint64]uint64{}
	for _, c := range p.Cells {
		k := uint64(c.Class)
		if c.Class == OffCPU {
			k = uint64(col[c.Node])
		}
		table[(uint64(c.LabelSet)*cols+k)*ns+uint64(c.Slice)] += c.N
	}
	d.Table = make([]uint64, 0, 2*len(table))
	for _, k := range slices.Sorted(maps.Keys(table)) {
		d.Table = append(d.Table, k, table[k])
	}
	d.Key = p.firstKey(keys, perSet)
	return d
}

// firstKey returns the index in keys of the key the page shows first: the
// one the most samples shown carry (perSet has them per set), ties by
// key; the program's own keys before the creation site and the leak mark,
// which the Go sampler puts on every goroutine's samples.
func (p *Profile) firstKey(keys []string, perSet []uint64) int {
	best, bestN, bestOwn := 0, uint64(0), false
	for i, k := range keys {
		var n uint64
		for s, set := range p.LabelSets {
			if _, ok := set.Value(k); ok {
				n += perSet[s]
			}
		}
		own := k != tachyon.LabelCreatedBy && k != tachyon.LabelLeak
		if n > 0 && (own && !bestOwn || own == bestOwn && n > bestN) {
			best, bestN, bestOwn = i, n, own
		}
	}
	return best
}
