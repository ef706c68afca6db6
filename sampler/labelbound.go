package sampler

import (
	"fmt"
	"hash/maphash"

	"github.com/gotachyon/profiler/tachyon"
)

// The label values a profile interns are bounded. Every distinct value is
// a frame in the sink's tables, which last as long as the profile (a
// segment writer's and a recent window's, as long as the process), so
// that a label per request (a request or span id) grew them without end.
// Past maxKeyValues distinct values of one key, or maxLabelValues of all
// keys together, a new value is written as tachyon.LabelValuesOver; past
// maxLabelKeys keys, a new key is left out. Each key is logged the
// first time it passes, and Stats.LabelsOver counts them.

// maxKeyValues bounds the distinct values of one label key. A variable
// for the tests.
var maxKeyValues = 10_000

const (
	// maxLabelValues bounds the distinct values of all keys together.
	maxLabelValues = 50_000
	// maxLabelKeys bounds the distinct keys.
	maxLabelKeys = 1_000
)

// labelBound is the bound's state: a hash of each admitted key and value
// (two that collide count as one: a value more, never one less), and
// each key's count, or -1 once it passed.
type labelBound struct {
	seed maphash.Seed
	seen map[uint64]struct{}
	keys map[string]int
	over int // keys that passed
}

// labelFrame interns the label frame f in the sink within the bound, and
// returns its index, or the index of its key's LabelValuesOver frame;
// false if its key is left out. A frame that is not a label's is
// interned as it is.
func (e *emitter) labelFrame(f tachyon.Frame) (uint32, bool) {
	l, ok := tachyon.LabelOf(f)
	if !ok {
		return e.sink.Frame(f), true
	}
	b := &e.labelBound
	if b.seen == nil {
		b.seed, b.seen, b.keys = maphash.MakeSeed(), make(map[uint64]struct{}), make(map[string]int)
	}
	h := maphash.String(b.seed, f.Func)
	if _, ok := b.seen[h]; ok {
		return e.sink.Frame(f), true
	}
	n, known := b.keys[l.Key]
	switch {
	case !known && len(b.keys) >= maxLabelKeys:
		return 0, false
	case n >= 0 && n < maxKeyValues && len(b.seen) < maxLabelValues:
		b.seen[h] = struct{}{}
		b.keys[l.Key] = n + 1
		return e.sink.Frame(f), true
	}
	if n >= 0 {
		b.keys[l.Key] = -1
		b.over++
		e.log(fmt.Sprintf("label %q passed %d distinct values (or the profile %d of all keys): further values are written as %q, which bounds the memory they take",
			l.Key, maxKeyValues, maxLabelValues, tachyon.LabelValuesOver))
	}
	return e.sink.Frame(tachyon.LabelFrame(tachyon.Label{Key: l.Key, Value: tachyon.LabelValuesOver})), true
}
