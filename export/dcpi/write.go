package dcpi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// version names the documented binary layout the files use.
const version = "pdb-0.07"

// profileHeader holds the header lines of a profile.
type profileHeader struct {
	Image     string    // image id, hex digits (see Image.id)
	Epoch     time.Time // profile start; written as UTC YYMMDDHHMM
	Platform  string    // machine name
	Event     string    // event sampled, e.g. "cycles"
	Period    uint64    // events per sample (see period)
	TextStart uint64    // link-time address of .text (offsets are relative to it)
	TextSize  uint64    // byte size of .text
	CPUSpeed  uint64    // CPU clock, MHz
	CPUCount  int       // optional: number of CPUs (0 omits the line)
	Path      string    // optional: the image's file name ("" omits it)
	// Extra holds additional "keyword value" lines, written after the
	// standard ones (readers keep them as unknown lines).
	Extra [][2]string
}

// ErrTotal reports more samples than the 32-bit footer can hold.
var ErrTotal = errors.New("dcpi: more than 2^32-1 samples in one profile (split it into several epochs)")

// period returns the events (cycles) per sample for a CPU clock in MHz and
// a sampling rate in Hz: round(mhz·10⁶ / hz), at least 1, so that
// samples × period / (mhz·10⁶) is the sampled time.
func period(mhz uint64, hz float64) uint64 {
	if hz <= 0 {
		return max(1, mhz*10000) // 100 Hz
	}
	return max(1, uint64(math.Round(float64(mhz)*1e6/hz)))
}

func restOfLine(key, v string) (string, error) {
	v = strings.TrimLeft(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, v), " \t")
	if v == "" {
		return "", fmt.Errorf("dcpi: header %s is empty", key)
	}
	return v, nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// header returns the ASCII header, padded so its length is a multiple of 4.
func (h *profileHeader) header() ([]byte, error) {
	if !isHex(h.Image) {
		return nil, fmt.Errorf("dcpi: image id %q is not hex digits", h.Image)
	}
	if h.Period == 0 {
		return nil, errors.New("dcpi: period is 0")
	}
	if h.TextSize == 0 {
		return nil, errors.New("dcpi: text size is 0")
	}
	platform, err := restOfLine("platform", h.Platform)
	if err != nil {
		return nil, err
	}
	event, err := restOfLine("event", h.Event)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	line := func(k, v string) { b.WriteString(k + " " + v + "\n") }
	line("version", version)
	line("image", strings.ToLower(h.Image))
	line("epoch", h.Epoch.UTC().Format("0601021504"))
	line("platform", platform)
	line("event", event)
	line("period", strconv.FormatUint(h.Period, 10))
	line("tstart", strconv.FormatUint(h.TextStart, 16))
	line("tsize", strconv.FormatUint(h.TextSize, 10))
	line("cpuspeed", strconv.FormatUint(max(h.CPUSpeed, 1), 10))
	if h.CPUCount > 0 {
		line("cpucount", strconv.Itoa(h.CPUCount))
	}
	if h.Path != "" {
		if p, err := restOfLine("path", h.Path); err == nil {
			line("path", p)
		}
	}
	for _, kv := range h.Extra {
		if kv[0] == "" || strings.ContainsAny(kv[0], " \t\n\r") {
			return nil, fmt.Errorf("dcpi: bad extra keyword %q", kv[0])
		}
		v, err := restOfLine(kv[0], kv[1])
		if err != nil {
			return nil, err
		}
		line(kv[0], v)
	}
	b.WriteString("samples")
	for (b.Len()+1)%4 != 0 {
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

// Stats describes a written profile.
type Stats struct {
	Addresses int    // addresses with samples (chunks)
	Samples   uint64 // sum of all counts
	Saturated int    // addresses whose count was capped at 2^32-1
}

// writeCounts writes a profile with header h and the sample counts per text
// offset to w: one chunk (offset, 1, count) per non-zero count in increasing
// offset order, then the footer. Offsets must be below h.TextSize.
func writeCounts(w io.Writer, h profileHeader, counts map[uint64]uint64) (Stats, error) {
	var st Stats
	head, err := h.header()
	if err != nil {
		return st, err
	}
	offs := slices.Sorted(maps.Keys(counts))
	for _, o := range offs {
		c := counts[o]
		if c == 0 {
			continue
		}
		if o >= h.TextSize {
			return st, fmt.Errorf("dcpi: offset %#x outside the text (size %d)", o, h.TextSize)
		}
		if c > math.MaxUint32 {
			c = math.MaxUint32
			st.Saturated++
		}
		st.Addresses++
		st.Samples += c
	}
	if st.Samples > math.MaxUint32 {
		return st, fmt.Errorf("%w: %d", ErrTotal, st.Samples)
	}
	bw := bufio.NewWriter(w)
	bw.Write(head)
	var rec [12]byte
	binary.LittleEndian.PutUint32(rec[4:], 1)
	for _, o := range offs {
		c := counts[o]
		if c == 0 {
			continue
		}
		binary.LittleEndian.PutUint32(rec[0:], uint32(o))
		binary.LittleEndian.PutUint32(rec[8:], uint32(min(c, math.MaxUint32)))
		bw.Write(rec[:])
	}
	binary.LittleEndian.PutUint32(rec[0:], uint32(st.Addresses))
	binary.LittleEndian.PutUint32(rec[4:], uint32(st.Samples))
	bw.Write(rec[:8])
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("dcpi: writing profile: %w", err)
	}
	return st, nil
}
