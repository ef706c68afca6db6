package dcpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// example is the worked example of dcpi-format.md §3.
var example = profileHeader{
	Image: "20250101120000588c74", Epoch: time.Date(2025, 1, 1, 12, 0, 30, 0, time.UTC),
	Platform: "gohost", Event: "cycles", Period: 30000000, TextStart: 0x401000,
	TextSize: 940977, CPUSpeed: 3000, Path: "/usr/local/bin/app",
}

func TestWorkedExample(t *testing.T) {
	var b bytes.Buffer
	st, err := writeCounts(&b, example, map[uint64]uint64{0xe53c4: 29, 0xe53b7: 4, 0x10: 0})
	if err != nil {
		t.Fatal(err)
	}
	wantHead := "version pdb-0.07\nimage 20250101120000588c74\nepoch 2501011200\nplatform gohost\nevent cycles\n" +
		"period 30000000\ntstart 401000\ntsize 940977\ncpuspeed 3000\npath /usr/local/bin/app\nsamples \n"
	if len(wantHead) != 180 || !strings.HasPrefix(b.String(), wantHead) {
		t.Fatalf("header:\n%q", b.String()[:min(b.Len(), 200)])
	}
	var want []byte
	for _, v := range []uint32{0xe53b7, 1, 4, 0xe53c4, 1, 29, 2, 33} {
		want = binary.LittleEndian.AppendUint32(want, v)
	}
	if !bytes.Equal(b.Bytes()[180:], want) {
		t.Fatalf("binary part % x", b.Bytes()[180:])
	}
	if st != (Stats{Addresses: 2, Samples: 33}) {
		t.Fatalf("stats %+v", st)
	}
	// The shared reference writer produces the same bytes.
	if testing.Short() {
		t.Skip("the comparison with the reference writer runs dcpi_ref.py")
	}
	tool := testutil.Shared(t, "tools", "dcpi_ref.py")
	dir := t.TempDir()
	counts := filepath.Join(dir, "counts")
	os.WriteFile(counts, []byte("0x4e63b7 4\n0x4e63c4 29\n"), 0o644)
	ref := filepath.Join(dir, "ref")
	cmd := exec.Command(testutil.Tool(t, "python3"), tool, "write", ref, counts, "--image", example.Image,
		"--epoch", "2501011200", "--platform", "gohost", "--period", "30000000", "--tstart", "401000",
		"--tsize", "940977", "--cpuspeed", "3000", "--path", "/usr/local/bin/app")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, _ := os.ReadFile(ref); !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("reference writer differs:\n%q\n%q", got, b.Bytes())
	}
	mine := filepath.Join(dir, "mine")
	os.WriteFile(mine, b.Bytes(), 0o644)
	c, footer, _ := refDump(t, mine)
	if c[0xe53b7] != 4 || c[0xe53c4] != 29 || footer != [2]uint64{2, 33} {
		t.Fatalf("dump %v %v", c, footer)
	}
}

func TestWriteErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		mod    func(*profileHeader)
		counts map[uint64]uint64
	}{
		"image not hex":    {func(h *profileHeader) { h.Image = "0xabc" }, nil},
		"period 0":         {func(h *profileHeader) { h.Period = 0 }, nil},
		"empty platform":   {func(h *profileHeader) { h.Platform = " \n" }, nil},
		"offset past text": {func(h *profileHeader) {}, map[uint64]uint64{940977: 1}},
		"bad extra":        {func(h *profileHeader) { h.Extra = [][2]string{{"a b", "c"}} }, nil},
		"total overflow":   {func(h *profileHeader) {}, map[uint64]uint64{1: 1 << 31, 2: 1 << 31}},
	} {
		h := example
		tc.mod(&h)
		if _, err := writeCounts(&bytes.Buffer{}, h, tc.counts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	h := example
	st, err := writeCounts(&bytes.Buffer{}, h, map[uint64]uint64{1: 1 << 33})
	if err != nil || st.Saturated != 1 || st.Samples != 1<<32-1 {
		t.Errorf("saturation: %+v %v", st, err)
	}
	_, err = writeCounts(&bytes.Buffer{}, h, map[uint64]uint64{1: 1 << 32, 2: 1})
	if !errors.Is(err, ErrTotal) {
		t.Errorf("want ErrTotal, got %v", err)
	}
	if p := period(3000, 100); p != 30000000 {
		t.Errorf("Period(3000, 100) = %d", p)
	}
}

func TestRuntimeTextStart(t *testing.T) {
	img := &Image{Path: "/usr/bin/app", TextAddr: 0x401000, TextOffset: 0x1000, TextSize: 0x5000}
	nonPIE := "00400000-00401000 r--p 00000000 08:01 12 /usr/bin/app\n" +
		"00401000-00406000 r-xp 00001000 08:01 12 /usr/bin/app\n" +
		"7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]\n"
	if got, err := runtimeTextStart(strings.NewReader(nonPIE), img); err != nil || got != 0x401000 {
		t.Errorf("non-PIE: %#x %v", got, err)
	}
	pie := "55d0c0000000-55d0c0001000 r--p 00000000 08:01 12 /usr/bin/app\n" +
		"55d0c0001000-55d0c0006000 r-xp 00001000 08:01 12 /usr/bin/app (deleted)\n"
	if got, err := runtimeTextStart(strings.NewReader(pie), img); err != nil || got != 0x55d0c0001000 {
		t.Errorf("PIE: %#x %v", got, err)
	}
	other := "00401000-00406000 r-xp 00001000 08:01 12 /usr/bin/other\n"
	if _, err := runtimeTextStart(strings.NewReader(other), img); !errors.Is(err, ErrNotMapped) {
		t.Errorf("want ErrNotMapped, got %v", err)
	}
}

// TestFromTachyon maps leaf lines of main.spin in the spin test program
// through its line table and checks the addresses with objdump.
func TestFromTachyon(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs go tool objdump and dcpi_ref.py")
	}
	bin := buildSpin(t, false)
	img, err := OpenImage(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if len(img.id()) != 20 || !isHex(img.id()) {
		t.Errorf("image id %q", img.id())
	}
	tab, err := img.lineTable()
	if err != nil {
		t.Fatal(err)
	}
	fn := tab.LookupFunc("main.spin")
	if fn == nil {
		t.Fatal("main.spin not in the line table")
	}
	insns := objdump(t, bin, `^main\.spin$`)
	// Every line of main.spin with code, and its expected first address.
	first := map[int]uint64{}
	file, _, _ := tab.PCToLine(fn.Entry)
	for pc := fn.Entry; pc < fn.End; pc++ {
		f, l, _ := tab.PCToLine(pc)
		if _, ok := first[l]; !ok && f == file && insns[pc] != "" {
			first[l] = pc
		}
	}
	if len(first) < 2 {
		t.Fatalf("lines of main.spin: %v", first)
	}
	path := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 4000})
	if err != nil {
		t.Fatal(err)
	}
	ts := uint64(1_700_000_000_000_000)
	wantCounts := map[uint64]uint64{}
	k := 0
	// Every other sample is labelled: its label frames, outermost, change
	// no leaf.
	labels := tachyon.LabelFrames([]tachyon.Label{{Key: "http.route", Value: "/spin"}, {Key: tachyon.LabelTask, Value: "t"}})
	for line, pc := range first {
		k++
		for j := range k {
			ts += 4000
			frames := []tachyon.Frame{{File: file, Func: "main.spin", Line: int32(line)}, {File: file, Func: "main.main", Line: 1}}
			if j%2 == 1 {
				frames = append(frames, labels...)
			}
			w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: ts, Status: tachyon.StatusOnCPU | tachyon.StatusHasGIL, Frames: frames})
			wantCounts[pc-img.TextAddr]++
		}
	}
	// A sample of label frames only has no code, as an empty stack.
	w.WriteSample(&writer.Sample{ThreadID: 3, Timestamp: ts, Status: tachyon.StatusOnCPU | tachyon.StatusHasGIL, Frames: labels})
	// Off CPU: left out; unknown line: unmapped.
	_, entryLine, _ := tab.PCToLine(fn.Entry)
	w.WriteSample(&writer.Sample{ThreadID: 2, Timestamp: ts, Frames: []tachyon.Frame{{File: file, Func: "main.spin", Line: int32(entryLine)}}})
	w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: ts + 1, Status: tachyon.StatusOnCPU, Frames: []tachyon.Frame{{File: "nowhere.go", Func: "main.nothing", Line: 7}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts, st, err := fromTachyon(f, img, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unmapped != 1 || st.UnmappedLines != 1 || st.Mapped != uint64(k*(k+1)/2) {
		t.Errorf("stats %+v", st)
	}
	if len(counts) != len(wantCounts) {
		t.Errorf("counts %v, want %v", counts, wantCounts)
	}
	for off, n := range wantCounts {
		if counts[off] != n {
			t.Errorf("offset %#x: %d, want %d", off, counts[off], n)
		}
		if insns[img.TextAddr+off] != "main.spin" {
			t.Errorf("offset %#x is not an instruction of main.spin", off)
		}
	}
	out := filepath.Join(t.TempDir(), "p.dcpi")
	if _, err := writeFile(out, img.header(time.Now(), 250), counts); err != nil {
		t.Fatal(err)
	}
	got, footer, hdr := refDump(t, out)
	if footer[1] != st.Mapped || len(got) != len(wantCounts) {
		t.Errorf("dump %v footer %v", got, footer)
	}
	if hdr["tstart"] != strconv.FormatUint(img.TextAddr, 16) || hdr["path"] != bin {
		t.Errorf("header %v", hdr)
	}
	all, st2, _ := fromTachyon(f, img, true)
	if st2.Samples != st.Samples+1 || len(all) != len(counts) {
		t.Errorf("all samples: %+v", st2)
	}
}

// TestAtStop: a Recorder told of three samples at one PC of this program
// writes a profile of one address with three samples when closed.
func TestAtStop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/maps")
	}
	path := filepath.Join(t.TempDir(), "p.dcpi")
	r := AtStop(path, 100)
	pc := reflect.ValueOf(TestAtStop).Pointer()
	for ts := range uint64(3) {
		r.OnCPU(1, ts, pc)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8 {
		t.Fatalf("%d bytes", len(b))
	}
	foot := b[len(b)-8:]
	if a, n := binary.LittleEndian.Uint32(foot), binary.LittleEndian.Uint32(foot[4:]); a != 1 || n != 3 {
		t.Fatalf("footer: %d addresses, %d samples; want 1, 3", a, n)
	}
}
