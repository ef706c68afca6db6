package upload

import (
	"testing"

	"github.com/gotachyon/profiler/internal/envnames"
)

// TestNewReadsUploadVariable checks that an uploader made from code with
// PROFILE_UPLOAD's URL, not through FromEnv, counts as reading it, so that
// package auto does not say the variable has no effect.
func TestNewReadsUploadVariable(t *testing.T) {
	t.Setenv(EnvUpload, "http://127.0.0.1:1")
	envnames.UploadRead.Store(false)
	t.Cleanup(func() { envnames.UploadRead.Store(false) })
	u, err := New(Config{URL: "http://127.0.0.1:1", Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	u.Close()
	if !envnames.UploadRead.Load() {
		t.Error("New with PROFILE_UPLOAD's URL does not count as reading it")
	}
}
