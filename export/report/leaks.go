package report

import (
	"errors"
	"math"
	"strconv"

	"github.com/gotachyon/profiler/internal/leaks"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// The leaks view: the goroutines blocked at one stack through whole
// slices of a wall profile, by creation site and wait (internal/leaks,
// which tachyon leaks prints too), with their count over time. The page
// shows it (leaks.js) when the profile has such a group.

// maxLeakGroups bounds the groups the page lists: the listed ones (those
// that grow, or that the runtime proved can never wake) first.
const maxLeakGroups = 50

// leaksOf analyses f, which p aggregates, for the leaks view; nil for a
// profile without blocked samples (a CPU profile) or without a group
// blocked through its last slice.
func leaksOf(f *reader.File, p *Profile) (*leaks.Result, error) {
	if p.Samples == 0 || p.States[tachyon.Blocked]+p.States[tachyon.Syscall] == 0 {
		return nil, nil
	}
	last := p.End - min(p.Interval, p.End-p.First)
	res, err := leaks.Analyze([]leaks.Input{{Name: "profile", File: f}}, leaks.Options{First: p.First, Last: max(last, p.First+1)})
	if fe := (*leaks.FileError)(nil); errors.As(err, &fe) {
		return nil, fe.Err
	}
	if err != nil || len(res.Groups) == 0 {
		return nil, err
	}
	return res, nil
}

// docLeaks is the leaks view's data: the slices' span and, per group,
// its creation site, wait stack (frame strings, innermost first), counts
// and unreachable counts per slice, growth a second (a string: JSON has
// no NaN) and whether it is listed. Flat counts the groups left out.
type docLeaks struct {
	Slices         int            `json:"slices"`
	SliceUs        uint64         `json:"sliceUs"`
	Groups         []docLeakGroup `json:"groups"`
	Flat           int            `json:"flat"`
	FlatGoroutines int            `json:"flatGoroutines"`
	Marked         bool           `json:"marked"`
}

type docLeakGroup struct {
	Site        int64   `json:"site"` // -1: not known
	Wait        []int64 `json:"wait"` // (func, file, line) triples
	Counts      []int   `json:"counts"`
	Unreachable []int   `json:"unreachable"`
	Rate        string  `json:"rate"`
	New         int     `json:"new"`
	Grows       bool    `json:"grows"`
	Listed      bool    `json:"listed"`
}

// docLeaks returns the leaks view's data, nil if there is none.
func (p *Profile) docLeaks(in *interner) *docLeaks {
	r := p.Leaks
	if r == nil {
		return nil
	}
	n := len(r.Slices)
	d := &docLeaks{Slices: n, Flat: r.Flat, FlatGoroutines: r.FlatGoroutines, Marked: r.Marked}
	if n > 0 {
		d.SliceUs = (r.Slices[n-1].End - r.Slices[0].Start) / uint64(n)
	}
	for i := range r.Groups[:min(len(r.Groups), maxLeakGroups)] {
		g := &r.Groups[i]
		dg := docLeakGroup{Site: -1, Counts: g.Counts, Unreachable: g.Unreachable, New: g.New, Grows: g.Grows, Listed: g.Listed,
			Rate: strconv.FormatFloat(finite(g.Rate), 'f', 2, 64)}
		if g.Site != "" {
			dg.Site = in.id(clip(g.Site))
		}
		for _, fr := range g.Wait[:min(len(g.Wait), 16)] {
			dg.Wait = append(dg.Wait, in.id(clip(fr.Func)), in.id(clip(fr.File)), int64(fr.Line))
		}
		d.Groups = append(d.Groups, dg)
	}
	return d
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
