package report

import (
	"cmp"
	"slices"
)

// cellLog adds up samples by cell key. Adds are appended and merged by a
// sort when the log has doubled since the last merge: 16 bytes a distinct
// cell, where a map takes twice that, and a hostile file's tree can hold a
// cell for each of a million nodes.
type cellLog struct {
	kv     []cellCount
	merged int // kv[:merged] is sorted by key, each key once
}

// cellCount is the samples of one cell key.
type cellCount struct{ key, n uint64 }

// minCellMerge is the fewest entries a merge waits for.
const minCellMerge = 1 << 15

// add adds n samples to the cell of key.
func (l *cellLog) add(key, n uint64) {
	if last := len(l.kv) - 1; last >= 0 && l.kv[last].key == key {
		l.kv[last].n += n
		return
	}
	l.kv = append(l.kv, cellCount{key, n})
	if len(l.kv) >= max(2*l.merged, minCellMerge) {
		l.merge()
	}
}

// rekey replaces every key k by to(k), adding up the cells that become one.
func (l *cellLog) rekey(to func(uint64) uint64) {
	for i := range l.kv {
		l.kv[i].key = to(l.kv[i].key)
	}
	l.merged = 0
	l.merge()
}

// merge sorts the log by key and adds up the entries of each key.
func (l *cellLog) merge() {
	slices.SortFunc(l.kv, func(x, y cellCount) int { return cmp.Compare(x.key, y.key) })
	out := 0
	for _, c := range l.kv {
		if out > 0 && l.kv[out-1].key == c.key {
			l.kv[out-1].n += c.n
			continue
		}
		l.kv[out] = c
		out++
	}
	l.kv = l.kv[:out]
	l.merged = out
}

// counts returns every cell once, sorted by key.
func (l *cellLog) counts() []cellCount {
	if l.merged != len(l.kv) {
		l.merge()
	}
	return l.kv
}
