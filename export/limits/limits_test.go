package limits_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/export/nytprof"
	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/export/speedscope"
	"github.com/gotachyon/profiler/export/spx"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// TestExporters: each exporter past one of its limits returns a
// *limits.Error naming that limit, in words a library's user can act on:
// no command-line flag.
func TestExporters(t *testing.T) {
	file := func(b []byte) *reader.File {
		f, err := reader.NewFileBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	deep, frames, threads := hostile.DeepDistinct(100), hostile.ManyFrames(100), hostile.ManyThreads(spx.MaxReports+1)
	cases := []struct {
		name  string
		limit limits.Limit
		max   int64
		err   error
	}{
		{"pprof frames", limits.StackFrames, 1000, pprof.Write(io.Discard, file(deep), pprof.Options{MaxStackFrames: 1000})},
		{"speedscope frames", limits.StackFrames, 1000, speedscope.Write(io.Discard, file(deep), speedscope.Options{MaxStackFrames: 1000})},
		{"nytprof frames", limits.StackFrames, 1000, nytprof.Write(io.Discard, file(deep), nytprof.Options{MaxStackFrames: 1000})},
		{"spx frames", limits.StackFrames, 1000, func() error {
			_, err := spx.WriteDir(t.TempDir(), file(deep), spx.Options{Layout: spx.Sequential, MaxStackFrames: 1000})
			return err
		}()},
		{"collapsed bytes", limits.FoldedBytes, 1000, collapsed.Write(io.Discard, file(deep), collapsed.Options{MaxBytes: 1000})},
		{"nytprof names", limits.NameBytes, 100, nytprof.Write(io.Discard, file(hostile.HugeName(1000, 50)), nytprof.Options{MaxNameBytes: 100})},
		{"pprof samples", limits.Samples, 10, pprof.Write(io.Discard, file(frames), pprof.Options{MaxSamples: 10})},
		{"spx reports", limits.Reports, spx.MaxReports, func() error {
			_, err := spx.WriteDir(t.TempDir(), file(threads), spx.Options{})
			return err
		}()},
	}
	for _, c := range cases {
		le, ok := errors.AsType[*limits.Error](c.err)
		if !ok || le.Limit != c.limit || le.Max != c.max || le.Value <= le.Max {
			t.Errorf("%s: %#v, want a *limits.Error of limit %d, max %d", c.name, c.err, c.limit, c.max)
			continue
		}
		if msg := c.err.Error(); strings.Contains(msg, "--") {
			t.Errorf("%s: %q names a flag", c.name, msg)
		}
	}
}
