package dcpi

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// refDump validates path with the shared reference tool and returns its
// counts per offset and its footer.
func refDump(t *testing.T, path string) (map[uint64]uint64, [2]uint64, map[string]string) {
	t.Helper()
	tool := testutil.Shared(t, "tools", "dcpi_ref.py")
	py := testutil.Tool(t, "python3")
	out, err := exec.Command(py, tool, "validate", path).CombinedOutput()
	if err != nil {
		t.Fatalf("dcpi_ref.py validate %s: %v\n%s", path, err, out)
	}
	if bytes.Contains(out, []byte("WARN")) {
		t.Errorf("dcpi_ref.py validate warns:\n%s", out)
	}
	out, err = exec.Command(py, tool, "dump", "--json", path).Output()
	if err != nil {
		t.Fatalf("dcpi_ref.py dump: %v", err)
	}
	var d struct {
		Header []struct{ Key, Value string }
		Footer struct {
			TotalOffsets uint64 `json:"total_offsets"`
			TotalSamples uint64 `json:"total_samples"`
		}
		Counts []struct{ Offset, Count uint64 }
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	counts := map[uint64]uint64{}
	for _, c := range d.Counts {
		counts[c.Offset] += c.Count
	}
	hdr := map[string]string{}
	for _, h := range d.Header {
		hdr[h.Key] = h.Value
	}
	return counts, [2]uint64{d.Footer.TotalOffsets, d.Footer.TotalSamples}, hdr
}

// buildSpin builds testdata/spin (optionally as PIE) into a temp dir.
func buildSpin(t *testing.T, pie bool) string {
	t.Helper()
	gotool := testutil.Tool(t, "go")
	bin := filepath.Join(t.TempDir(), "spin")
	args := []string{"build", "-o", bin}
	if pie {
		args = append(args, "-buildmode=pie")
	}
	cmd := exec.Command(gotool, append(args, "./testdata/spin")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// objdump returns the instruction start addresses of the functions whose
// names match re, from "go tool objdump -s re bin".
func objdump(t *testing.T, bin, re string) map[uint64]string {
	t.Helper()
	out, err := exec.Command(testutil.Tool(t, "go"), "tool", "objdump", "-s", re, bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	insns := map[uint64]string{}
	fn := ""
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, "TEXT "); ok {
			fn, _, _ = strings.Cut(name, "(SB)")
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(f[1], "0x") {
			if a, err := strconv.ParseUint(f[1][2:], 16, 64); err == nil {
				insns[a] = fn
			}
		}
	}
	if len(insns) == 0 {
		t.Fatalf("objdump -s %s found no instructions", re)
	}
	return insns
}
