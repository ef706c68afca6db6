package nytprof

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The reference below recomputes, straight from the samples and without
// the exporter's data structures, what NYTProf must report: per sub calls
// (activations), inclusive and exclusive ticks; per line ticks and counts
// (statements: the times a goroutine arrived at a stack sampled at the
// line). A sample standing for Count samples weighs Count.

type refKey struct{ file, name string } // name: subName of the symbol

type refSub struct{ calls, incl, excl uint64 }

type refLine struct {
	file string
	line int32
}

type refResult struct {
	subs  map[refKey]*refSub
	lines map[refLine]*decLine
	total uint64
}

type refFrame struct {
	key  refKey
	line int32 // 0 = unusable
}

func reference(t testing.TB, src Source, onCPU bool) *refResult {
	iv := min(src.Interval(), 100_000_000)
	w := iv * 10
	res := &refResult{subs: map[refKey]*refSub{}, lines: map[refLine]*decLine{}}
	prev := map[[2]uint64][]refFrame{}
	err := src.Each(func(s *Sample) error {
		if onCPU && !s.Status.OnCPU() {
			return nil
		}
		g := [2]uint64{s.Thread, uint64(s.Interp)}
		var cur []refFrame
		for i := len(s.Stack) - 1; i >= 0; i-- {
			f := src.Frame(s.Stack[i])
			file := fileName(f.File) // as NEW_FID carries it
			if file == "" {
				file = "(unknown)"
			}
			l := f.Line
			if l < 1 || l > 65535 {
				l = 0
			}
			cur = append(cur, refFrame{refKey{file, subName(f.Func)}, l})
		}
		p := prev[g]
		prev[g] = cur
		if len(cur) == 0 {
			return nil
		}
		w := w * max(s.Count, 1)
		arrived := !slices.Equal(p, cur)
		res.total += w
		seen := map[refKey]bool{}
		same := true // frames 0..i-1 equal to the previous sample's
		for i, f := range cur {
			r := res.subs[f.key]
			if r == nil {
				r = &refSub{}
				res.subs[f.key] = r
			}
			cont := same && i < len(p) && p[i].key == f.key
			if !cont {
				r.calls++
			}
			same = same && i < len(p) && p[i] == f
			if !seen[f.key] {
				r.incl += w
				seen[f.key] = true
			}
		}
		res.subs[cur[len(cur)-1].key].excl += w
		for i := len(cur) - 1; i >= 0; i-- {
			if cur[i].line > 0 {
				k := refLine{cur[i].key.file, cur[i].line}
				if res.lines[k] == nil {
					res.lines[k] = &decLine{}
				}
				res.lines[k].ticks += w
				if arrived {
					res.lines[k].count++
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ticks(sec float64) uint64 { return uint64(math.Round(sec * 1e7)) }

// baseName strips the "@<file>[#n]" suffix the exporter adds to make names
// unique.
func baseName(name, file string) string {
	if i := strings.LastIndex(name, "@"+sanitize(file)); i > 0 {
		return name[:i]
	}
	return name
}

// loaded is the loader's view of a file, from the Go decoder or from
// Devel::NYTProf::Data.
type loaded struct {
	subs  map[refKey]*refSub
	lines map[refLine]*decLine
}

func fromDecoded(d *decoded) *loaded {
	l := &loaded{subs: map[refKey]*refSub{}, lines: map[refLine]*decLine{}}
	for name, s := range d.subs {
		file := d.files[s.fid-1].name
		k := refKey{file, baseName(name, file)}
		if l.subs[k] == nil {
			l.subs[k] = &refSub{}
		}
	}
	for _, c := range d.calls {
		file := d.files[d.subs[c.callee].fid-1].name
		r := l.subs[refKey{file, baseName(c.callee, file)}]
		r.calls += uint64(c.count)
		r.incl += ticks(c.incl)
		r.excl += ticks(c.excl)
	}
	for k, v := range d.lines {
		l.lines[refLine{d.files[k[0]-1].name, int32(k[1])}] = &decLine{ticks: v.ticks, count: v.count}
	}
	return l
}

// compare reports every difference between the reference and a loaded
// view.
func compare(ref *refResult, got *loaded) []string {
	var diffs []string
	for k, r := range ref.subs {
		g := got.subs[k]
		if g == nil {
			diffs = append(diffs, fmt.Sprintf("sub %v missing", k))
			continue
		}
		if *g != *r {
			diffs = append(diffs, fmt.Sprintf("sub %v: got calls/incl/excl %v, want %v", k, *g, *r))
		}
	}
	for k := range got.subs {
		if ref.subs[k] == nil {
			diffs = append(diffs, fmt.Sprintf("unexpected sub %v", k))
		}
	}
	for k, r := range ref.lines {
		if g := got.lines[k]; g == nil || *g != *r {
			diffs = append(diffs, fmt.Sprintf("line %v: got %v, want %v", k, g, *r))
		}
	}
	for k := range got.lines {
		if ref.lines[k] == nil {
			diffs = append(diffs, fmt.Sprintf("unexpected line %v", k))
		}
	}
	return diffs
}
