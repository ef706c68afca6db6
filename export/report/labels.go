package report

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/tachyon"
)

// MaxLabelSets is the most distinct label sets a report tells apart, the
// empty set included: the sets are numbered in the order first seen, and
// the samples of any set seen after MaxLabelSets others count in one more
// set, LabelSet.Other, whose labels are lost. Every tree cell is kept per
// set, so the bound is also the most a labelled file multiplies the
// cells by.
const MaxLabelSets = 256

// LabelSet is the labels a sample carries: its label frames
// (tachyon.LabelOf), one per key.
type LabelSet struct {
	Labels []tachyon.Label // by key
	// Other marks the set that stands for every set seen after
	// MaxLabelSets others: its samples are counted, their labels lost.
	Other bool
}

// Value returns the value of key in s, and whether s has the key.
func (s LabelSet) Value(key string) (string, bool) {
	for _, l := range s.Labels {
		if l.Key == key {
			return l.Value, true
		}
	}
	return "", false
}

// Labelled reports whether any sample carries labels.
func (p *Profile) Labelled() bool { return len(p.LabelSets) > 1 }

// LabelKeys returns the keys of p's label sets, sorted.
func (p *Profile) LabelKeys() []string {
	var keys []string
	for _, s := range p.LabelSets {
		for _, l := range s.Labels {
			keys = append(keys, l.Key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// labeler finds the label set of each sample while Aggregate reads.
type labeler struct {
	p       *Profile
	canon   []int32
	isLabel []bool            // per canonical frame
	ids     map[string]uint16 // set by its canonical frames, as bytes
	key     []byte
	prev    []uint32 // frame-table indices of the last labelled stack's label frames
	prevSet uint16
	other   int // the index of the Other set, 0 before there is one
}

// newLabeler returns a labeler for p's frames, whose canonical frame per
// frame-table index is canon, and puts the empty set in p.LabelSets.
func newLabeler(p *Profile, canon []int32) labeler {
	l := labeler{p: p, canon: canon, isLabel: make([]bool, len(p.Frames)), ids: make(map[string]uint16)}
	for i := range p.Frames {
		l.isLabel[i] = tachyon.IsLabel(p.Frame(int32(i)))
	}
	p.LabelSets = []LabelSet{{}}
	return l
}

// split returns the code frames of stack (innermost first, frame-table
// indices), without its outermost run of label frames, and the index of
// the set those carry in p.LabelSets.
func (l *labeler) split(stack []uint32) ([]uint32, uint16) {
	n := tachyon.SplitLabels(len(stack), func(i int) bool { return l.isLabel[l.canon[stack[i]]] })
	if n == len(stack) {
		return stack, 0
	}
	labs := stack[n:]
	if slices.Equal(labs, l.prev) {
		return stack[:n], l.prevSet
	}
	l.key = l.key[:0]
	for _, fr := range labs {
		l.key = binary.LittleEndian.AppendUint32(l.key, uint32(l.canon[fr]))
	}
	set, ok := l.ids[string(l.key)]
	if !ok {
		set = l.add(labs)
	}
	l.prev, l.prevSet = append(l.prev[:0], labs...), set
	return stack[:n], set
}

// add numbers the set of labs, the label frames of a stack not seen
// before, or returns the Other set's index past MaxLabelSets.
func (l *labeler) add(labs []uint32) uint16 {
	p := l.p
	if len(p.LabelSets)-min(l.other, 1) >= MaxLabelSets {
		if l.other == 0 {
			l.other = len(p.LabelSets)
			p.LabelSets = append(p.LabelSets, LabelSet{Other: true})
		}
		return uint16(l.other)
	}
	var s LabelSet
	for k := len(labs) - 1; k >= 0; k-- { // outermost first: by key
		lb, _ := tachyon.LabelOf(p.Frame(l.canon[labs[k]]))
		s.Labels = append(s.Labels, lb)
	}
	slices.SortStableFunc(s.Labels, func(a, b tachyon.Label) int { return strings.Compare(a.Key, b.Key) })
	id := uint16(len(p.LabelSets))
	p.LabelSets = append(p.LabelSets, s)
	l.ids[string(l.key)] = id
	return id
}

// LabelRow is the samples of one value of a label key (see
// Profile.ByLabel), per class of state and, blocked ones, per wait reason.
type LabelRow struct {
	Value string // the key's value; "" for None and Other rows
	// None marks the row of the samples whose label set lacks the key,
	// those without labels among them.
	None bool
	// Other marks the row of the samples of the Other label set, whose
	// labels are lost.
	Other   bool
	Samples uint64
	Classes [NumClasses]uint64 // samples per Class
	// Waits has the blocked samples (Classes[OffCPU]) by wait reason
	// (tachyon.WaitReason of their innermost frame), "" for those with
	// none.
	Waits map[string]uint64
}

// ByLabel returns the samples the views hold (Shown) in the time slices lo
// to hi (exclusive) by value of the label key: a row per value, the row of
// the samples without the key (None) and that of the Other set, each when
// it has samples; heaviest first, ties by value, None and Other last.
func (p *Profile) ByLabel(key string, lo, hi int) []LabelRow {
	rowOf := make([]int, len(p.LabelSets)) // per set
	var rows []LabelRow
	type rowKey struct {
		value       string
		none, other bool
	}
	byValue := map[rowKey]int{}
	for i, s := range p.LabelSets {
		var r LabelRow
		switch v, ok := s.Value(key); {
		case s.Other:
			r.Other = true
		case ok:
			r.Value = v
		default:
			r.None = true
		}
		rk := rowKey{r.Value, r.None, r.Other}
		k, ok := byValue[rk]
		if !ok {
			k = len(rows)
			byValue[rk] = k
			r.Waits = map[string]uint64{}
			rows = append(rows, r)
		}
		rowOf[i] = k
	}
	for _, c := range p.Cells {
		if int(c.Slice) < lo || int(c.Slice) >= hi {
			continue
		}
		r := &rows[rowOf[c.LabelSet]]
		r.Samples += c.N
		r.Classes[c.Class] += c.N
		if c.Class == OffCPU {
			r.Waits[p.waitReason(c.Node)] += c.N
		}
	}
	rows = slices.DeleteFunc(rows, func(r LabelRow) bool { return r.Samples == 0 })
	slices.SortFunc(rows, func(a, b LabelRow) int {
		return cmp.Or(cmp.Compare(b2i(a.None || a.Other), b2i(b.None || b.Other)), cmp.Compare(b2i(a.Other), b2i(b.Other)),
			cmp.Compare(b.Samples, a.Samples), strings.Compare(a.Value, b.Value))
	})
	return rows
}

// waitReason returns the wait reason of call-tree node n's frame, "" when
// it is none.
func (p *Profile) waitReason(n int32) string {
	if n <= 0 {
		return ""
	}
	r, _ := tachyon.WaitReason(p.Frame(p.Nodes[n].Frame))
	return r
}
