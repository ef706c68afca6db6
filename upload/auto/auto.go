package auto

import (
	"github.com/gotachyon/profiler/auto"
	"github.com/gotachyon/profiler/internal/quietpipe"
	"github.com/gotachyon/profiler/upload"
)

// captureHooker is the profiler's capture hook: fn gets each capture
// written (profiler.Profile.OnCapture).
type captureHooker interface {
	OnCapture(fn func(path, reason string))
}

// segmentHooker is the profiler's segment hook: fn gets each finalized
// segment's path in order, last=true for the one Stop closes.
type segmentHooker interface {
	OnSegment(fn func(path string, last bool))
}

// logf logs through the standard logger, as the profiler does.
var logf = quietpipe.Printf

func init() {
	cfg, ok, err := upload.FromEnv()
	if !ok {
		return
	}
	if err != nil {
		logf("profiler: upload off: %v", err)
		return
	}
	p := auto.Profile()
	if p == nil {
		logf("profiler: upload off: %s is set but no profile runs (set PROFILE_OUT)", upload.EnvUpload)
		return
	}
	start(cfg, p)
}

// start registers an uploader of cfg with the running profile p, if it has
// the segment hook, and returns it (nil when it does not upload).
func start(cfg upload.Config, p any) *upload.Uploader {
	h, ok := p.(segmentHooker)
	if !ok {
		logf("profiler: upload off: this profiler has no segment hook (Profile.OnSegment)")
		return nil
	}
	u, err := upload.New(cfg)
	if err != nil {
		logf("profiler: upload off: %v", err)
		return nil
	}
	h.OnSegment(hook(u))
	if c, ok := p.(captureHooker); ok {
		c.OnCapture(u.Capture)
	}
	return u
}

// hook returns the segment hook of u: each segment to u, and at the last
// one u closed and its counters logged (after Close, which counts what it
// leaves unpushed as dropped).
func hook(u *upload.Uploader) func(string, bool) {
	return func(path string, last bool) {
		u.Segment(path, last)
		if last {
			u.Close()
			logf("profiler: upload: %v", u.Stats())
		}
	}
}
