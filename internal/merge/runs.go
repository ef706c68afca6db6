package merge

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gotachyon/profiler/segment"
)

// Run is one profiling run's segments among a list of files, told apart
// by their names (see segment.Name).
type Run struct {
	// ID is the run id the names carry. Names without one (written by
	// earlier versions) get "old1", "old2"...: in each directory and
	// prefix, a run of them ends where the sequence numbers start again.
	ID    string
	Start time.Time // its first file's nominal start
	Files []string  // in the order given
}

// Selections of SelectRuns besides a run id.
const (
	// AllRuns merges the files of every run.
	AllRuns = "all"
	// LatestRun keeps the files of the run that started last.
	LatestRun = "latest"
)

// ErrRuns is returned by SelectRuns for files of several runs that no
// selection allows to merge, or a selection that matches no run.
var ErrRuns = errors.New("the files are segments of several runs")

// Runs groups the segments among paths by the run that wrote them, in
// the order of their first file; files not named as segments are in no
// run.
func Runs(paths []string) []Run {
	var runs []Run
	index := map[string]int{}
	type seqKey struct{ dir, prefix string }
	lastSeq := map[seqKey]int{}
	olds := 0
	for _, p := range paths {
		f, ok := segment.ParseName(filepath.Base(p))
		if !ok {
			continue
		}
		id := f.Run
		if id == "" {
			k := seqKey{filepath.Dir(p), f.Prefix}
			if prev, seen := lastSeq[k]; !seen || f.Seq <= prev {
				olds++
			}
			lastSeq[k] = f.Seq
			id = fmt.Sprintf("old%d", olds)
		}
		i, ok := index[id]
		if !ok {
			i = len(runs)
			index[id] = i
			runs = append(runs, Run{ID: id, Start: f.Start})
		}
		runs[i].Files = append(runs[i].Files, p)
	}
	return runs
}

// SelectRuns returns the files of paths to merge, by sel: "" keeps them
// all if their segments are of one run at most and fails otherwise,
// naming the runs; AllRuns keeps them all; LatestRun, or a run id (or its
// unique beginning), keeps that run's segments and the files not named as
// segments.
func SelectRuns(paths []string, sel string) ([]string, error) {
	runs := Runs(paths)
	switch {
	case sel == AllRuns || (sel == "" && len(runs) <= 1):
		return paths, nil
	case sel == "":
		return nil, fmt.Errorf("%w: %s; choose one with --runs ID or --runs latest, or merge them all with --runs all", ErrRuns, describe(runs))
	}
	var pick *Run
	if sel == LatestRun {
		for i := range runs {
			if pick == nil || !runs[i].Start.Before(pick.Start) {
				pick = &runs[i]
			}
		}
	} else {
		for i := range runs {
			if strings.HasPrefix(runs[i].ID, sel) {
				if pick != nil {
					return nil, fmt.Errorf("%w: --runs %s matches runs %s and %s", ErrRuns, sel, pick.ID, runs[i].ID)
				}
				pick = &runs[i]
			}
		}
	}
	if pick == nil {
		return nil, fmt.Errorf("%w: --runs %s matches none of %s", ErrRuns, sel, describe(runs))
	}
	keep := make(map[string]bool, len(pick.Files))
	for _, p := range pick.Files {
		keep[p] = true
	}
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		_, ok := segment.ParseName(filepath.Base(p))
		return ok && !keep[p]
	}), nil
}

// describe names runs in an error: id, files and start.
func describe(runs []Run) string {
	if len(runs) == 0 {
		return "no run"
	}
	var b strings.Builder
	for i, r := range runs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "run %s (%d files from %s, started %s)", r.ID, len(r.Files), filepath.Base(r.Files[0]), r.Start.Format("2006-01-02T15:04:05.000Z"))
	}
	return b.String()
}
