package speedscopetest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// Dist returns the directory of speedscope's built web app (index.html and
// its assets), skipping t (failing it under CI) when the npm package is not
// installed.
func Dist(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	d := filepath.Join(filepath.Dir(file), "node_modules", "speedscope", "dist", "release")
	if _, err := os.Stat(filepath.Join(d, "index.html")); err != nil {
		testutil.Missing(t, "speedscope npm package not installed (npm ci --prefix internal/testing/speedscopetest): %v", err)
	}
	return d
}
