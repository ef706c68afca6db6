package proftest

import (
	"os/exec"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// Validate fails t unless the Tachyon file at path passes reader.Verify and,
// where the tools are present, "tachyon_ref.py validate". It returns the
// file's sample count.
func Validate(t testing.TB, path string) uint32 {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	if err := f.Verify(); err != nil {
		t.Fatalf("verify %s: %v", path, err)
	}
	n := f.Header.SampleCount
	RefValidate(t, path)
	return n
}

// RefValidate runs the shared reference validator on path.
func RefValidate(t testing.TB, path string) {
	t.Helper()
	tool := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	out, err := exec.Command(py, tool, "validate", path).CombinedOutput()
	if err != nil {
		t.Fatalf("tachyon_ref.py validate %s: %v\n%s", path, err, out)
	}
}
