package segment

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// File name extensions.
const (
	// Ext ends every finalized segment's name.
	Ext = ".tachyon"
	// PartExt ends the name of a file still open: the open segment's
	// (NAME.tachyon.part) and the spare's opened ahead.
	PartExt = ".part"
)

// Name returns the name of segment number seq (from 1) of run run
// whose nominal start is start (µs since the epoch):
// PREFIX-YYYYMMDDTHHMMSS.mmmZ-RUN-NNNNNN.tachyon, which sorts by start
// time. RUN is the run's id (see Options.Run); an empty run gives
// the name without it that earlier versions wrote.
func Name(prefix, run string, start uint64, seq int) string {
	t := time.UnixMicro(int64(start)).UTC()
	if run != "" {
		run += "-"
	}
	return fmt.Sprintf("%s-%sZ-%s%06d%s", prefix, t.Format("20060102T150405.000"), run, seq, Ext)
}

// File is what a segment's name says (see Name).
type File struct {
	Prefix string
	Start  time.Time // the nominal start, to the millisecond
	Run    string    // "" for a name without a run id
	Seq    int
}

// nameRE matches a finalized segment's name.
var nameRE = regexp.MustCompile(`^(.+)-([0-9]{8}T[0-9]{6}\.[0-9]{3})Z-(?:([0-9a-f]{8})-)?([0-9]{6,9})\.tachyon$`)

// ParseName parses the base name of a finalized segment, with or
// without a run id; ok is false for any other name.
func ParseName(name string) (f File, ok bool) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return File{}, false
	}
	start, err := time.Parse("20060102T150405.000", m[2])
	if err != nil {
		return File{}, false
	}
	seq, err := strconv.Atoi(m[4])
	if err != nil {
		return File{}, false
	}
	return File{Prefix: m[1], Start: start, Run: m[3], Seq: seq}, true
}

// NewRunID returns a new random run id: eight lowercase hexadecimal
// digits, as Name wants.
func NewRunID() string {
	return fmt.Sprintf("%08x", rand.Uint32())
}

// validRun reports whether run is a run id Name can write and
// ParseName read back.
func validRun(run string) bool {
	if len(run) != 8 {
		return false
	}
	return strings.Trim(run, "0123456789abcdef") == ""
}

// spareName returns a name for a spare segment, opened ahead: tag is
// random.
func spareName(prefix string, tag uint32) string {
	return fmt.Sprintf("%s-next-%d%s", prefix, tag, PartExt)
}

// isPartName reports whether name is that of a Writer's open file with
// the given prefix: a segment's NAME.tachyon.part or a spare's.
func isPartName(prefix, name string) bool {
	base, ok := strings.CutSuffix(name, PartExt)
	if !ok {
		return false
	}
	if tag, ok := strings.CutPrefix(base, prefix+"-next-"); ok {
		_, err := strconv.ParseUint(tag, 10, 32)
		return err == nil
	}
	f, ok := ParseName(base)
	return ok && f.Prefix == prefix
}
