package dcpi

import (
	"debug/gosym"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// maxScan bounds the bytes of a function scanned for a line; longer
// functions use the whole-table lookup.
const maxScan = 16 << 10

// A leaf frame's offset before it is looked up, and when it has none.
const unknown, none = -1, -2

// FileStats describes a histogram approximated from a Tachyon file.
type FileStats struct {
	Samples       uint64 // samples considered (on CPU, or all), with a leaf frame
	Mapped        uint64 // samples given an address
	Unmapped      uint64 // samples whose leaf line is not in the line table
	Lines         int    // distinct leaf frames
	UnmappedLines int    // distinct leaf frames without an address
}

// fromTachyon approximates a DCPI histogram (counts per .text offset) from
// the leaf frames of f's samples, which store no PCs: each leaf (function,
// file, line) is mapped to the first instruction of that line, looked up
// in img's Go line table within the named function, else anywhere in the
// table (inlined code). Only on-CPU samples count unless all is set. It
// reads the file run by run (reader.Samples.NextRun), weighing each run
// by its count. The
// result is one representative address per source line, not the sampled
// instructions, and is only meaningful if img is the profiled binary.
func fromTachyon(f *reader.File, img *Image, all bool) (map[uint64]uint64, FileStats, error) {
	var st FileStats
	tab, err := img.lineTable()
	if err != nil {
		return nil, st, err
	}
	cache := make([]int64, len(f.FrameRefs()))
	for i := range cache {
		cache[i] = unknown
	}
	counts := map[uint64]uint64{}
	labels := labelframes.Of(f)
	it := f.Samples()
	defer it.Close()
	for it.NextRun() { // a run of samples weighs its count
		s, n := it.Sample(), it.Run().Count
		// Label frames are outermost: a stack of them alone has no leaf.
		if labels.Code(s.Stack) == 0 || (!all && !s.Status.OnCPU()) {
			continue
		}
		st.Samples += n
		off := cache[s.Stack[0]]
		if off == unknown {
			off = leafOffset(img, tab, f.Frame(s.Stack[0]), &st)
			cache[s.Stack[0]] = off
		}
		if off == none {
			st.Unmapped += n
			continue
		}
		st.Mapped += n
		counts[uint64(off)] += n
	}
	if err := it.Err(); err != nil {
		return nil, st, err
	}
	return counts, st, nil
}

// leafOffset returns the .text offset of leaf frame fr's line, or none,
// counting the line in st.
func leafOffset(img *Image, tab *gosym.Table, fr tachyon.Frame, st *FileStats) int64 {
	st.Lines++
	if pc := linePC(tab, fr); pc >= img.TextAddr && pc-img.TextAddr < img.TextSize {
		return int64(pc - img.TextAddr)
	}
	st.UnmappedLines++
	return none
}

// linePC returns the first PC of fr's line, or 0.
func linePC(tab *gosym.Table, fr tachyon.Frame) uint64 {
	if fn := tab.LookupFunc(fr.Func); fn != nil && fn.End > fn.Entry && fn.End-fn.Entry <= maxScan {
		for pc := fn.Entry; pc < fn.End; pc++ {
			if file, line, _ := tab.PCToLine(pc); int32(line) == fr.Line && file == fr.File {
				return pc
			}
		}
	}
	pc, _, err := tab.LineToPC(fr.File, int(fr.Line))
	if err != nil {
		return 0
	}
	return pc
}
