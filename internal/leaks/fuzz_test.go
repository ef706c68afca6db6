package leaks_test

import (
	"errors"
	"testing"

	"github.com/gotachyon/profiler/internal/leaks"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzAnalyze: a file the reader accepts is analysed (a CPU profile is
// refused with ErrNoWaits), and the result holds together: a count per
// slice, no more unreachable than counted, the listed groups first.
func FuzzAnalyze(f *testing.F) {
	var res *leaks.Result
	hostile.FuzzExporter(f, func(file *reader.File) error {
		var err error
		res, err = leaks.Analyze([]leaks.Input{{Name: "fuzz", File: file}}, leaks.Options{})
		if errors.Is(err, leaks.ErrNoWaits) {
			res, err = nil, nil
		}
		return err
	}, func(t *testing.T, _ *reader.File) {
		if res == nil {
			return
		}
		listed := true
		for _, g := range res.Groups {
			if len(g.Counts) != len(res.Slices) || len(g.Unreachable) != len(res.Slices) {
				t.Fatalf("%d counts for %d slices", len(g.Counts), len(res.Slices))
			}
			for k := range g.Counts {
				if g.Unreachable[k] > g.Counts[k] || g.Counts[k] < 0 {
					t.Fatalf("slice %d: %d unreachable of %d", k, g.Unreachable[k], g.Counts[k])
				}
			}
			if g.Listed && !listed {
				t.Fatal("a listed group after one that is not")
			}
			listed = g.Listed
		}
	})
}
