package sampler

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/internal/offheap"
)

// TestRecords: records adds and removes like a map by number, keeps a
// live record where it is, gives an ended goroutine's number to the next
// new one, and makes a chunk only at a new peak of live records.
func TestRecords(t *testing.T) {
	var r records
	want := map[uint32]*tgor{} // by number
	rng := rand.New(rand.NewPCG(1, 2))
	peak := 0
	for step := range 20000 {
		if len(want) > 0 && rng.IntN(100) < 45 {
			for n, g := range want { // a random one
				if g.id != uint64(n)*7 || g.slot != n {
					t.Fatalf("step %d: record %d moved or changed: id %d slot %d", step, n, g.id, g.slot)
				}
				r.remove(g)
				delete(want, n)
				if r.at(n) != nil {
					t.Fatalf("step %d: number %d found after its removal", step, n)
				}
				break
			}
		} else {
			g := r.add()
			if g.id != 0 || g.slot == 0 || want[g.slot] != nil {
				t.Fatalf("step %d: add gave id %d, number %d (taken: %v)", step, g.id, g.slot, want[g.slot] != nil)
			}
			g.id = uint64(g.slot) * 7
			want[g.slot] = g
		}
		peak = max(peak, len(want))
		if r.live != len(want) || int(r.made()) != peak {
			t.Fatalf("step %d: %d live, %d made; want %d live, peak %d", step, r.live, r.made(), len(want), peak)
		}
	}
	for n, g := range want {
		if r.at(n) != g {
			t.Fatalf("number %d: found %p, want %p", n, r.at(n), g)
		}
	}
	if r.at(0) != nil || r.at(r.made()+1) != nil {
		t.Fatal("found a record at 0 or past the last number")
	}
	var last uint32
	seen := 0
	for g := range r.all {
		if g.slot <= last || want[g.slot] != g {
			t.Fatalf("all yielded number %d after %d, or a record not live", g.slot, last)
		}
		last = g.slot
		seen++
	}
	if seen != len(want) {
		t.Fatalf("all yielded %d records, want %d", seen, len(want))
	}
}

// TestRecordLabels: a record's label set, kept beside it, is found by
// its record alone, changes and goes with setLabels, and goes with the
// record: the next goroutine given its number has none, and the records
// hold the sets of live records only.
func TestRecordLabels(t *testing.T) {
	var r records
	held := func() int {
		n := 0
		for _, c := range r.labels {
			if c == nil {
				continue
			}
			for _, ls := range c {
				if ls != nil {
					n++
				}
			}
		}
		return n
	}
	a, b := &labelSet{}, &labelSet{}
	g, h := r.add(), r.add()
	r.setLabels(g, a)
	r.setLabels(h, b)
	if r.labelsOf(g) != a || r.labelsOf(h) != b {
		t.Fatal("a record's label set was not its own")
	}
	r.setLabels(h, nil)
	if r.labelsOf(h) != nil || h.has(fLabeled) || held() != 1 {
		t.Fatalf("after setLabels(nil): %v, flag %v, %d sets kept", r.labelsOf(h), h.has(fLabeled), held())
	}
	n := g.slot
	r.remove(g)
	if held() != 0 {
		t.Fatalf("%d label sets kept after the record's removal", held())
	}
	if g2 := r.add(); g2.slot != n || r.labelsOf(g2) != nil {
		t.Fatalf("the next record (number %d, was %d) has labels %v", g2.slot, n, r.labelsOf(g2))
	}
}

// TestRecordLabelsSparse: a label set given to a record numbered past
// many without one (goroutines parked before the profile, a goroutine
// created since) costs the chunk of its number, not a place for every
// number below it.
func TestRecordLabelsSparse(t *testing.T) {
	var r records
	var last *tgor
	for range 10 * chunked.Chunk {
		last = r.add()
	}
	ls := &labelSet{}
	r.setLabels(last, ls)
	made := 0
	for _, c := range r.labels {
		if c != nil {
			made++
		}
	}
	if made != 1 || r.labelsOf(last) != ls {
		t.Fatalf("%d chunks of label sets made for one, at number %d; its set %v", made, last.slot, r.labelsOf(last))
	}
	if g := r.rec(0); r.labelsOf(g) != nil {
		t.Fatalf("record 1 has labels %v", r.labelsOf(g))
	}
	r.remove(last)
	r.release()
}

// TestRecordsOffHeap: the records' chunks lie off the Go heap, a record's
// handle number is kept in it and goes with it, and release gives the
// chunks back.
func TestRecordsOffHeap(t *testing.T) {
	before := offheap.InUse()
	var r records
	g, h := r.add(), r.add()
	if runtime.GOOS == "linux" && offheap.InUse() != before+int64(unsafe.Sizeof([chunked.Chunk]tgor{})) {
		t.Fatalf("off the heap: %d bytes more, want a chunk of records", offheap.InUse()-before)
	}
	g.h, h.h = 7, 8
	r.remove(g)
	if h.h != 8 {
		t.Fatal("a record's handle moved when another record went")
	}
	if g2 := r.add(); g2.slot != g.slot || g2.h != 0 {
		t.Fatalf("the next record numbered %d (want %d) has a handle: %d", g2.slot, g.slot, g2.h)
	}
	r.release()
	if offheap.InUse() != before || r.made() != 0 || r.live != 0 {
		t.Fatalf("after release: %d bytes off the heap more, %d made, %d live", offheap.InUse()-before, r.made(), r.live)
	}
}
