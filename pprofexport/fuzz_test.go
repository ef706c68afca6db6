package pprofexport_test

import (
	"testing"

	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/pprofexport"
	"github.com/gotachyon/profiler/reader"
)

// FuzzConvert feeds arbitrary bytes to the reader: a file it rejects must
// not convert; one it accepts must convert to a valid profile that counts
// every sample once.
func FuzzConvert(f *testing.F) {
	for _, b := range hostile.Seeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			return
		}
		p, err := pprofexport.Convert(file, pprofexport.Options{MaxGoroutines: 4})
		if file.Verify() != nil {
			if err == nil {
				t.Fatal("a rejected file converted")
			}
			return
		}
		if err != nil {
			t.Fatalf("an accepted file does not convert: %v", err)
		}
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
