package dcpi

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// histogram counts sampled PCs. It is safe for concurrent use.
type histogram struct {
	mu    sync.Mutex
	pcs   map[uintptr]uint64
	total uint64
}

// Add counts one sample at pc.
func (h *histogram) Add(pc uintptr) {
	h.mu.Lock()
	if h.pcs == nil {
		h.pcs = make(map[uintptr]uint64)
	}
	h.pcs[pc]++
	h.total++
	h.mu.Unlock()
}

// Total returns the number of samples added.
func (h *histogram) Total() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// Offsets returns the counts per offset from text, a run-time text start,
// keeping offsets below size; dropped counts the samples outside (vdso,
// cgo libraries).
func (h *histogram) Offsets(text, size uint64) (counts map[uint64]uint64, dropped uint64) {
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

// selfOptions describes a live profile of the running process.
type selfOptions struct {
	Start  time.Time // profile start (epoch)
	RateHz float64   // sampling rate
	Event  string    // "" = "cycles"
}

// writeSelf writes h, a histogram of PCs of the running process, as a DCPI
// profile of its executable to path. Offsets are taken from the run-time
// start of .text (from /proc/self/maps, so PIE load bias cancels out) and
// tstart is the link-time address, so they line up with the file on disk.
// The header records the samples dropped outside .text ("dropped") and
// that the PCs are sampled ones ("pcsource sampled").
func writeSelf(path string, h *histogram, opt selfOptions) (Stats, error) {
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
	rt, err := runtimeTextStart(maps, img)
	maps.Close()
	if err != nil {
		return Stats{}, err
	}
	counts, dropped := h.Offsets(rt, img.TextSize)
	hdr := img.header(opt.Start, opt.RateHz)
	if opt.Event != "" {
		hdr.Event = opt.Event
	}
	hdr.Extra = append(hdr.Extra, [2]string{"pcsource", "sampled"}, [2]string{"dropped", fmt.Sprint(dropped)})
	return writeFile(path, hdr, counts)
}

// header returns the header of a profile of img started at start and
// sampled at rateHz: this host, event cycles, the period for this CPU's
// clock, the image's text.
func (img *Image) header(start time.Time, rateHz float64) profileHeader {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	mhz := cpuSpeed()
	return profileHeader{
		Image: img.id(), Epoch: start, Platform: host, Event: "cycles",
		Period: period(mhz, rateHz), TextStart: img.TextAddr, TextSize: img.TextSize,
		CPUSpeed: mhz, CPUCount: runtime.NumCPU(), Path: img.Path,
	}
}

// writeFile writes a profile to a new file at path.
func writeFile(path string, h profileHeader, counts map[uint64]uint64) (Stats, error) {
	f, err := os.Create(path)
	if err != nil {
		return Stats{}, fmt.Errorf("dcpi: %w", err)
	}
	st, err := writeCounts(f, h, counts)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("dcpi: %w", cerr)
	}
	return st, err
}
