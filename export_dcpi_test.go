package profiler_test

import (
	"debug/elf"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// TestDCPIAtStopLive builds export/dcpi/testdata/spin (plain and PIE), which profiles
// itself with WithObserver(dcpi.AtStop(...)) while spinning in main.spin, and checks its DCPI file
// with the shared validator, against the Tachyon file of the same run, the
// binary's ELF text section and go tool objdump. Under the race detector the
// program is built with it too (its CPU samples once marked main excluded).
func TestDCPIAtStopLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	gotool := testutil.Tool(t, "go")
	py := testutil.Tool(t, "python3")
	ref := testutil.Shared(t, "tools", "dcpi_ref.py")
	for _, pie := range []bool{false, true} {
		t.Run("pie="+strconv.FormatBool(pie), func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "spin")
			args := []string{"build", "-o", bin}
			if pie {
				args = append(args, "-buildmode=pie")
			}
			if testutil.Race && !pie { // the race detector does not build PIE
				args = append(args, "-race")
			}
			if out, err := exec.Command(gotool, append(args, "./export/dcpi/testdata/spin")...).CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command(bin, dir, "1500ms").CombinedOutput()
			if err != nil {
				t.Fatalf("spin: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "trace") {
				t.Skipf("trace backend unavailable (no PCs):\n%s", out)
			}
			file := filepath.Join(dir, "spin.dcpi")
			if out, err := exec.Command(py, ref, "validate", file).CombinedOutput(); err != nil || strings.Contains(string(out), "WARN") {
				t.Fatalf("validate: %v\n%s", err, out)
			}
			js, err := exec.Command(py, ref, "dump", "--json", file).Output()
			if err != nil {
				t.Fatal(err)
			}
			var d struct {
				Header []struct{ Key, Value string }
				Footer struct {
					TotalSamples uint64 `json:"total_samples"`
				}
				Counts []struct{ Offset, Count uint64 }
			}
			if err := json.Unmarshal(js, &d); err != nil {
				t.Fatal(err)
			}
			hdr := map[string]string{}
			for _, h := range d.Header {
				hdr[h.Key] = h.Value
			}
			ef, err := elf.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			text := ef.Section(".text")
			ef.Close()
			if hdr["tstart"] != strconv.FormatUint(text.Addr, 16) || hdr["tsize"] != strconv.FormatUint(text.Size, 10) ||
				hdr["event"] != "cycles" || hdr["path"] != bin {
				t.Errorf("header %v, .text at %#x size %d", hdr, text.Addr, text.Size)
			}
			dropped, _ := strconv.ParseUint(hdr["dropped"], 10, 64)

			// The histogram's total equals the on-CPU leaf samples.
			f, err := reader.Open(filepath.Join(dir, "spin.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var onCPU uint64
			it := f.Samples()
			for it.Next() {
				s := it.Sample()
				if s.Status.OnCPU() && len(s.Stack) > 0 { // a CPU sample may find its goroutine in a system call
					onCPU++
				}
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			it.Close()
			if d.Footer.TotalSamples+dropped != onCPU || onCPU == 0 {
				t.Errorf("histogram %d + %d dropped, Tachyon on-CPU leaf samples %d", d.Footer.TotalSamples, dropped, onCPU)
			}

			// The hot offsets are instructions of main.spin.
			dump, err := exec.Command(gotool, "tool", "objdump", "-s", `^main\.spin$`, bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			insn := map[uint64]bool{}
			for _, line := range strings.Split(string(dump), "\n") {
				if fs := strings.Fields(line); len(fs) >= 2 && strings.HasPrefix(fs[1], "0x") {
					if a, err := strconv.ParseUint(fs[1][2:], 16, 64); err == nil {
						insn[a] = true
					}
				}
			}
			var inSpin, best, bestOff uint64
			for _, c := range d.Counts {
				if insn[text.Addr+c.Offset] {
					inSpin += c.Count
				}
				if c.Count > best {
					best, bestOff = c.Count, c.Offset
				}
			}
			if !insn[text.Addr+bestOff] {
				t.Errorf("hottest offset %#x (%d samples) is not an instruction of main.spin", bestOff, best)
			}
			if inSpin*10 < d.Footer.TotalSamples*8 {
				t.Errorf("only %d of %d samples on main.spin instructions", inSpin, d.Footer.TotalSamples)
			}
			t.Logf("%d samples, %d in main.spin, hottest +%#x", d.Footer.TotalSamples, inSpin, bestOff)
		})
	}
}
