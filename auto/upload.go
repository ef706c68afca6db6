package auto

import (
	"os"
	"sync"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/envnames"
	"github.com/gotachyon/profiler/internal/quietpipe"
)

// checkUpload has p warn, when its first file is finalized, that
// PROFILE_UPLOAD is set but no uploader read it: the program imports this
// package, not upload/auto, so nothing is shipped. It cannot be told at
// init, which runs before upload/auto's.
func checkUpload(p *profiler.Profile) {
	if os.Getenv(envnames.Upload) == "" {
		return
	}
	var once sync.Once
	p.OnSegment(func(string, bool) {
		once.Do(func() {
			if !envnames.UploadRead.Load() {
				quietpipe.Print("profiler: " + envnames.Upload + " has no effect: no uploader reads it; import _ \"github.com/gotachyon/profiler/upload/auto\" (or pass upload.FromEnv's Config to upload.New)")
			}
		})
	})
}
