package spx

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// synthFile writes a profile of goroutines whose stacks random-walk, so
// that consecutive samples often differ by a few frames.
func synthFile(tb testing.TB, goroutines, perG int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "synth.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var idx []uint32
	for i := range 200 {
		idx = append(idx, w.Frame(tachyon.Frame{File: "main.go", Func: fmt.Sprintf("example.com/app/pkg%d.F%d", i%7, i), Line: int32(i)}))
	}
	stacks := make([][]uint32, goroutines)
	for s := range perG {
		for g := range goroutines {
			st := stacks[g]
			switch r := rng.IntN(10); {
			case r < 3 && len(st) > 1:
				st = st[:len(st)-1-rng.IntN(min(3, len(st)-1))]
			case r < 7 && len(st) < 30:
				for range 1 + rng.IntN(3) {
					st = append(st, idx[rng.IntN(len(idx))])
				}
			}
			stacks[g] = st
			inner := make([]uint32, len(st))
			for i, f := range st {
				inner[len(st)-1-i] = f
			}
			status := tachyon.Status(0)
			if rng.IntN(2) == 0 {
				status = tachyon.StatusOnCPU
			}
			if err := w.WriteStack(uint64(g+1), 0, 1_700_000_000_000_000+uint64(s)*1000, status, inner); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkConvert measures export speed (sequential layout, one report).
func BenchmarkConvert(b *testing.B) {
	path := synthFile(b, 8, 5000)
	f, err := reader.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	var events uint64
	for range b.N {
		ws, err := WriteDir(dir, f, Options{Layout: Sequential, Host: "h"})
		if err != nil {
			b.Fatal(err)
		}
		events = ws[0].Summary.Events
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkConvertWall converts a wall profile of 1,000 parked goroutines
// over 6,000 ticks (6 M samples, mostly long REPEAT runs) in both layouts:
// sequential reads runs; per-goroutine reads every sample's time and
// writes the 10 busiest goroutines.
func BenchmarkConvertWall(b *testing.B) {
	f := proftest.Wall(b, 1000, 6000)
	for _, opt := range []Options{{Layout: Sequential, Host: "h"}, {Layout: PerGoroutine, Top: 10, Host: "h"}} {
		b.Run(opt.Layout.String(), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WriteDir(dir, f, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkParseUI100k parses a report of at least 100k events with the
// UI-rule parser of the tests (the aggregation the SPX UI runs).
func BenchmarkParseUI100k(b *testing.B) {
	path := synthFile(b, 8, 12000)
	f, err := reader.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	dir := b.TempDir()
	ws, err := WriteDir(dir, f, Options{Layout: Sequential, Host: "h"})
	if err != nil {
		b.Fatal(err)
	}
	if ws[0].Summary.Events < 100_000 {
		b.Fatalf("only %d events", ws[0].Summary.Events)
	}
	st, _ := os.Stat(filepath.Join(dir, ws[0].Key+".txt.gz"))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := parseUI(dir, ws[0].Key); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ws[0].Summary.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(ws[0].Summary.Events), "events")
	b.ReportMetric(float64(st.Size()), "gz-bytes")
}

// TestLargeReport checks a larger random-walk profile against the samples.
func TestLargeReport(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	checkFile(t, synthFile(t, 4, 5000))
}
