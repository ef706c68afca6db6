package report

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

var tempRoot string

// mkdirTemp returns a directory that lives until the tests end, for
// fixtures shared between tests and benchmarks.
func mkdirTemp() (string, error) {
	if tempRoot == "" {
		dir, err := os.MkdirTemp("", "tachyon-report-")
		if err != nil {
			return "", err
		}
		tempRoot = dir
	}
	return tempRoot, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tempRoot != "" {
		os.RemoveAll(tempRoot)
	}
	os.Exit(code)
}

func benchAggregate(b *testing.B, path string) {
	f := proftest.Open(b, path)
	n := float64(f.Header.SampleCount)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Aggregate(f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkAggregate50k aggregates the public realistic_50k vector.
func BenchmarkAggregate50k(b *testing.B) {
	benchAggregate(b, testutil.Vectors(b, "tachyon", "realistic_50k.bin"))
}

// BenchmarkAggregateMillion aggregates 1 M synthetic samples (zstd).
func BenchmarkAggregateMillion(b *testing.B) {
	path, err := million()
	if err != nil {
		b.Fatal(err)
	}
	benchAggregate(b, path)
}

// BenchmarkWriteMillion aggregates 1 M samples and writes the page.
func BenchmarkWriteMillion(b *testing.B) {
	path, err := million()
	if err != nil {
		b.Fatal(err)
	}
	f := proftest.Open(b, path)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkBrowserMillion opens the report of 1 M synthetic samples in
// headless Chromium and reports how long the page took to be ready and to
// answer a click on the flame graph. The goals are a page ready in 3 s and
// a click answered in 100 ms.
func BenchmarkBrowserMillion(b *testing.B) {
	browsertest.Require(b)
	path, err := million()
	if err != nil {
		b.Fatal(err)
	}
	f := proftest.Open(b, path)
	page := filepath.Join(b.TempDir(), "report.html")
	w, err := os.Create(page)
	if err != nil {
		b.Fatal(err)
	}
	if err := Write(w, f, Options{Title: "million"}); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	var ready, click []float64
	for b.Loop() {
		raw, _ := browsertest.Run(b, browsertest.FileURL(page), browserScript, "")
		var r browserResult
		if err := json.Unmarshal(raw, &r); err != nil {
			b.Fatalf("result %s: %v", raw, err)
		}
		ready = append(ready, r.ReadyMs)
		click = append(click, r.Zoomed.ClickMs)
	}
	b.ReportMetric(median(ready), "ready-ms")
	b.ReportMetric(median(click), "click-ms")
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
