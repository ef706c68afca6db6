package dcpi

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// Histogram counts sampled PCs. It is safe for concurrent use.
type Histogram struct {
	mu    sync.Mutex
	pcs   map[uintptr]uint64
	total uint64
}

// Add counts one sample at pc.
func (h *Histogram) Add(pc uintptr) {
	h.mu.Lock()
	if h.pcs == nil {
		h.pcs = make(map[uintptr]uint64)
	}
	h.pcs[pc]++
	h.total++
	h.mu.Unlock()
}

// Total returns the number of samples added.
func (h *Histogram) Total() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// Offsets returns the counts per offset from text, a run-time text start,
// keeping offsets below size; dropped counts the samples outside (vdso,
// cgo libraries).
func (h *Histogram) Offsets(text, size uint64) (counts map[uint64]uint64, dropped uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	counts = make(map[uint64]uint64, len(h.pcs))
	for pc, n := range h.pcs {
		a := uint64(pc)
		if a < text || a-text >= size {
			dropped += n
			continue
		}
		counts[a-text] += n
	}
	return counts, dropped
}

// SelfOptions describes a live profile of the running process.
type SelfOptions struct {
	Start  time.Time // profile start (epoch)
	RateHz float64   // sampling rate
	Event  string    // "" = "cycles"
}

// WriteSelf writes h, a histogram of PCs of the running process, as a DCPI
// profile of its executable to path. Offsets are taken from the run-time
// start of .text (from /proc/self/maps, so PIE load bias cancels out) and
// tstart is the link-time address, so they line up with the file on disk.
// The header records the samples dropped outside .text ("dropped") and
// that the PCs are sampled ones ("pcsource sampled").
func WriteSelf(path string, h *Histogram, opt SelfOptions) (Stats, error) {
	exe, err := os.Executable()
	if err != nil {
		return Stats{}, fmt.Errorf("dcpi: %w", err)
	}
	img, err := OpenImage(exe)
	if err != nil {
		return Stats{}, err
	}
	defer img.Close()
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return Stats{}, fmt.Errorf("dcpi: %w", err)
	}
	rt, err := RuntimeTextStart(maps, img)
	maps.Close()
	if err != nil {
		return Stats{}, err
	}
	counts, dropped := h.Offsets(rt, img.TextSize)
	hdr := img.Header(opt.Start, opt.RateHz)
	if opt.Event != "" {
		hdr.Event = opt.Event
	}
	hdr.Extra = append(hdr.Extra, [2]string{"pcsource", "sampled"}, [2]string{"dropped", fmt.Sprint(dropped)})
	return WriteFile(path, hdr, counts)
}

// Header returns the header of a profile of img started at start and
// sampled at rateHz: this host, event cycles, the period for this CPU's
// clock, the image's text.
func (img *Image) Header(start time.Time, rateHz float64) Header {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	mhz := CPUSpeed()
	return Header{
		Image: img.ID(), Epoch: start, Platform: host, Event: "cycles",
		Period: Period(mhz, rateHz), TextStart: img.TextAddr, TextSize: img.TextSize,
		CPUSpeed: mhz, CPUCount: runtime.NumCPU(), Path: img.Path,
	}
}

// WriteFile writes a profile to a new file at path.
func WriteFile(path string, h Header, counts map[uint64]uint64) (Stats, error) {
	f, err := os.Create(path)
	if err != nil {
		return Stats{}, fmt.Errorf("dcpi: %w", err)
	}
	st, err := WriteCounts(f, h, counts)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("dcpi: %w", cerr)
	}
	return st, err
}
