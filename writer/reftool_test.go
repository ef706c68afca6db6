package writer_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// TestReferenceTool checks the writer against the independent reference
// tool: for the golden inputs its writer must produce the same raw bytes,
// and its validator must accept our zstd output.
func TestReferenceTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference tool (python3) once per input")
	}
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	inputs, _ := filepath.Glob("testdata/golden/*.input.jsonl")
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.jsonl")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			refOut := filepath.Join(dir, "ref.bin")
			if out, err := exec.Command(py, ref, "write", in, refOut).CombinedOutput(); err != nil {
				t.Fatalf("reference write: %v\n%s", err, out)
			}
			meta, samples := inputStream(t, in)
			want, _ := os.ReadFile(refOut)
			if got := encode(t, meta, samples, tachyon.CompressionNone); !bytes.Equal(got, want) {
				t.Errorf("raw output differs from the reference writer's")
			}
			z := filepath.Join(dir, "ours.zstd.bin")
			if err := os.WriteFile(z, encode(t, meta, samples, tachyon.CompressionZstd), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(py, ref, "validate", z).CombinedOutput(); err != nil {
				t.Errorf("reference validator rejects our zstd output: %v\n%s", err, out)
			}
		})
	}
}
