package dcpi

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gotachyon/profiler/reader"
)

// Options configure Write.
type Options struct {
	// Image is the profiled executable (see OpenImage); required.
	Image *Image
	// All counts every sample, as event "wallclock", instead of the on-CPU
	// samples as "cycles".
	All bool
	// Stats, if not nil, receives what the conversion counted and wrote.
	Stats *WriteStats
}

// WriteStats describes a profile written by Write.
type WriteStats struct {
	FileStats       // the samples considered and mapped (Write)
	Written   Stats // the samples and addresses written
}

// Write approximates f as a DCPI profile of opt.Image (approximated:
// one address per leaf source line, since a Tachyon file stores no PCs) and
// writes it to w. The header's epoch is f's start time and its period
// follows f's sampling interval; it records the approximation
// ("pcsource line-table-approximation") and the samples left unmapped.
func Write(w io.Writer, f *reader.File, opt Options) error {
	if opt.Image == nil {
		return errors.New("dcpi: Options.Image is required: the profiled executable")
	}
	counts, st, err := fromTachyon(f, opt.Image, opt.All)
	if err != nil {
		return err
	}
	rate := 0.0
	if f.Header.Interval > 0 {
		rate = 1e6 / float64(f.Header.Interval)
	}
	h := opt.Image.header(time.UnixMicro(int64(min(f.Header.StartTime, 1<<62))), rate)
	if opt.All {
		h.Event = "wallclock"
	}
	h.Extra = append(h.Extra, [2]string{"pcsource", "line-table-approximation"},
		[2]string{"unmapped", fmt.Sprint(st.Unmapped)})
	ws, err := writeCounts(w, h, counts)
	if opt.Stats != nil {
		*opt.Stats = WriteStats{FileStats: st, Written: ws}
	}
	return err
}
