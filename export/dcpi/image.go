package dcpi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/elfsym"
)

// Image describes an executable's text section and identity.
type Image struct {
	Path       string
	TextAddr   uint64 // link-time address of .text
	TextSize   uint64
	TextOffset uint64 // file offset of .text
	BuildID    string // GNU build id (hex), or "" when absent
	GoBuildID  string // Go build id, or ""
	ModTime    time.Time

	f *elf.File
	r *os.File // f's file: elf.NewFile does not close it
}

// OpenImage reads the ELF executable at path. Close releases it.
func OpenImage(path string) (*Image, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dcpi: %w", err)
	}
	f, err := elfsym.NewFile(path, r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("dcpi: %w", err)
	}
	text := f.Section(".text")
	if text == nil {
		r.Close()
		return nil, fmt.Errorf("dcpi: %s has no .text section", path)
	}
	st, err := r.Stat()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("dcpi: %w", err)
	}
	img := &Image{Path: path, TextAddr: text.Addr, TextSize: text.Size, TextOffset: text.Offset,
		ModTime: st.ModTime(), f: f, r: r}
	if s := f.Section(".note.gnu.build-id"); s != nil {
		if desc, ok := note(s, f.ByteOrder, "GNU\x00", 3); ok {
			img.BuildID = hex.EncodeToString(desc)
		}
	}
	if s := f.Section(".note.go.buildid"); s != nil {
		if desc, ok := note(s, f.ByteOrder, "Go\x00\x00", 4); ok {
			img.GoBuildID = string(desc)
		}
	}
	return img, nil
}

// note returns the descriptor of the first ELF note in s with the given
// name and type.
func note(s *elf.Section, bo binary.ByteOrder, name string, typ uint32) ([]byte, bool) {
	const max = 1 << 16
	if s.Size > max {
		return nil, false
	}
	data, err := s.Data()
	if err != nil {
		return nil, false
	}
	for len(data) >= 12 {
		nsz := uint64(bo.Uint32(data))
		dsz := uint64(bo.Uint32(data[4:]))
		t := bo.Uint32(data[8:])
		data = data[12:]
		nAl, dAl := (nsz+3)&^3, (dsz+3)&^3
		if nAl+dAl > uint64(len(data)) {
			return nil, false
		}
		if t == typ && string(data[:nsz]) == name {
			return data[nAl : nAl+dsz], true
		}
		data = data[nAl+dAl:]
	}
	return nil, false
}

// Close closes the executable.
func (img *Image) Close() error { return img.r.Close() }

// id returns the 20-hex-digit image id: the file's mtime (UTC
// YYYYMMDDHHMMSS) and the first 6 hex digits of the GNU build id, or of the
// SHA-256 of the Go build id when there is no GNU build id.
func (img *Image) id() string {
	tag := img.BuildID
	if len(tag) < 6 {
		src := img.GoBuildID
		if src == "" {
			src = img.Path
		}
		sum := sha256.Sum256([]byte(src))
		tag = hex.EncodeToString(sum[:])
	}
	return img.ModTime.UTC().Format("20060102150405") + strings.ToLower(tag[:6])
}

// lineTable returns the Go symbol and line table of the image (.gopclntab).
func (img *Image) lineTable() (*gosym.Table, error) {
	t, err := elfsym.Table(img.f)
	if err != nil {
		return nil, fmt.Errorf("dcpi: %s: %w", img.Path, err)
	}
	return t, nil
}

// ErrNotMapped reports that no executable mapping of the image covers .text.
var ErrNotMapped = errors.New("dcpi: image text not found in the process mappings")

// runtimeTextStart returns the run-time address of img's .text in a
// process, from its /proc/PID/maps text (maps): the executable mapping of
// img.Path whose file range covers .text's file offset gives
// start + (text offset − mapping offset). For a non-PIE binary this is
// img.TextAddr; for a PIE it includes the load bias.
func runtimeTextStart(maps io.Reader, img *Image) (uint64, error) {
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || !strings.Contains(f[1], "x") {
			continue
		}
		path := strings.Join(f[5:], " ")
		if path != img.Path && path != img.Path+" (deleted)" {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || end < start {
			continue
		}
		if img.TextOffset >= off && img.TextOffset < off+(end-start) {
			return start + (img.TextOffset - off), nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("dcpi: reading mappings: %w", err)
	}
	return 0, fmt.Errorf("%w (%s)", ErrNotMapped, img.Path)
}

// cpuSpeed returns the CPU clock in MHz from /proc/cpuinfo's first
// "cpu MHz" line, rounded, or 1000 when unknown (then the period is the
// number of ns per sample).
func cpuSpeed() uint64 {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 1000
	}
	for line := range bytes.Lines(b) {
		k, v, ok := strings.Cut(string(line), ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && mhz >= 1 {
				return uint64(mhz + 0.5)
			}
		}
	}
	return 1000
}
