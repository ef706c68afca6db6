package auto

import (
	"testing"

	"github.com/gotachyon/profiler/upload"
)

type fakeCaptureProfile struct {
	fakeProfile
	capture func(path, reason string)
}

func (p *fakeCaptureProfile) OnCapture(fn func(path, reason string)) { p.capture = fn }

// TestRegistersCapture: a profile with a capture hook gets the uploader's.
func TestRegistersCapture(t *testing.T) {
	capture(t)
	p := &fakeCaptureProfile{}
	u := start(upload.Config{URL: "http://127.0.0.1:1", Logf: func(string, ...any) {}}, p)
	if u == nil || p.capture == nil {
		t.Fatal("no capture hook registered")
	}
	p.capture("/nonexistent/capture.tachyon", "slow")
	if s := u.Stats(); s.Captures != 1 || s.Failed != 1 {
		t.Errorf("stats %+v, want one failed capture", s)
	}
	u.Close()
}
