package pprof_test

import (
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzConvert: an accepted file converts to a valid profile that counts
// every sample once.
func FuzzConvert(f *testing.F) {
	var p *profile.Profile
	hostile.FuzzExporter(f, func(file *reader.File) (err error) {
		p, err = pprof.Convert(file, pprof.Options{MaxGoroutines: 4})
		return err
	}, func(t *testing.T, file *reader.File) {
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		var total int64
		for _, s := range p.Sample {
			total += s.Value[0]
		}
		if total != int64(file.Header.SampleCount) {
			t.Fatalf("profile counts %d samples, the file has %d", total, file.Header.SampleCount)
		}
	})
}
