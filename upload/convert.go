package upload

import (
	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
)

// convert reads the Tachyon file at path and returns its pprof profile
// without the goroutine label.
func convert(path string) (*profile.Profile, error) {
	f, err := reader.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// No goroutine label: samples that differ only by goroutine are added
	// together as they are read, in one pass, so memory and the payload
	// follow the distinct stacks and states, not the goroutines.
	return pprof.Convert(f, pprof.Options{MaxGoroutines: -1})
}
