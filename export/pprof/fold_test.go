package pprof_test

import (
	"errors"
	"testing"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// TestFoldGoroutines: past MaxGoroutines the quietest goroutines share the
// label "other", and no sample is lost.
func TestFoldGoroutines(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.ManyThreads(5))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Convert(f, pprof.Options{MaxGoroutines: 2})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	labels := map[string]int64{}
	for _, s := range p.Sample {
		total += s.Value[0]
		labels[s.Label[pprof.LabelGoroutine][0]] += s.Value[0]
	}
	if total != 5 || len(labels) != 3 || labels["1"] != 1 || labels["2"] != 1 || labels[pprof.OtherGoroutines] != 3 {
		t.Fatalf("total %d, by goroutine %v", total, labels)
	}
}

// TestMaxSamples: a profile of more distinct samples than MaxSamples is
// refused with a *limits.Error, not converted in unbounded memory.
func TestMaxSamples(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.ManyFrames(100))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pprof.Convert(f, pprof.Options{MaxSamples: 10})
	if le, ok := errors.AsType[*limits.Error](err); !ok || le.Limit != limits.Samples {
		t.Fatalf("err = %v, want a *limits.Error (Samples)", err)
	}
	if _, err := pprof.Convert(f, pprof.Options{MaxSamples: 100}); err != nil {
		t.Fatal(err)
	}
}

// TestMaxSampleFrames: a profile whose distinct samples list more frames
// in all than MaxSampleFrames (a few threads of deep stacks) is refused
// with a *limits.Error, after folding the goroutines, not encoded in
// memory that grows with samples times depth; without goroutine labels
// its samples are its few stacks, and it converts.
func TestMaxSampleFrames(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.DeepThreads(4, 2))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pprof.Convert(f, pprof.Options{MaxSampleFrames: 8 << 16})
	if le, ok := errors.AsType[*limits.Error](err); !ok || le.Limit != limits.SampleFrames {
		t.Fatalf("err = %v, want a *limits.Error (SampleFrames)", err)
	}
	p, err := pprof.Convert(f, pprof.Options{MaxSampleFrames: 8 << 16, MaxGoroutines: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) > 6 {
		t.Fatalf("%d samples of at most 6 stacks", len(p.Sample))
	}
}
