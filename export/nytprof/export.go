package nytprof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/reader"
)

// Options control the export. The zero value writes an uncompressed file
// counting every sample (wall time), without source.
type Options struct {
	// OnCPU counts only on-CPU samples (tachyon.Status.OnCPU);
	// otherwise every sample counts (wall-clock view).
	OnCPU bool
	// Compress writes everything after the text part as one zlib stream
	// (the "z" record), as NYTProf does by default.
	Compress bool
	// ReadSource returns a file's text for embedding as SRC_LINE records;
	// an error means the file has no source. nil, the default, embeds no
	// source and reads nothing: a profile's file names come from whoever
	// wrote it. SourceFiles reads from disk within limits.
	ReadSource func(path string) ([]byte, error)
	// DeclLine maps a function symbol to the line of its declaration, used
	// as the sub's first line; nil or !ok means the smallest sampled line.
	DeclLine func(sym string) (line int, ok bool)
	// Application is written as the :application attribute (the report's
	// title); empty means "gotachyon".
	Application string
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the export's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames). Past it the export fails
	// with a *limits.Error (limits.StackFrames).
	MaxStackFrames int
	// MaxNameBytes bounds the bytes of sub names the file holds: the
	// format repeats a sub's name in each call-tree node and caller edge,
	// so a long name in a deep stack is multiplied (a 1 MiB name 65,536
	// frames deep is 64 GiB). Past it Export fails before writing, with a
	// *limits.Error (limits.NameBytes); 0 means DefaultMaxNameBytes.
	MaxNameBytes int64
}

// MaxSourceSize is SourceFiles' default cap on one source file.
const MaxSourceSize = 16 << 20

// DefaultMaxNameBytes is the default Options.MaxNameBytes: 1 GiB.
const DefaultMaxNameBytes = 1 << 30

// Write validates f fully and, if it is sound, writes it to w as an
// NYTProf file. Nothing is written for a file the reader rejects: the
// samples are read, and so the file validated, before the first byte.
func Write(w io.Writer, f *reader.File, opt Options) error {
	return WriteSource(w, FromFile(f), opt)
}

// WriteSource writes the samples of src to w as an NYTProf 5.0 file. All samples
// are read and aggregated before the first byte is written, so an error
// from the source produces no output.
func WriteSource(w io.Writer, src Source, opt Options) error {
	m := newModel(src, &opt)
	if err := src.Each(m.add); err != nil {
		return fmt.Errorf("nytprof: reading samples: %w", err)
	}
	r := m.finish()
	if err := m.checkNames(r); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := m.write(bw, r); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("nytprof: write: %w", err)
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkNames fails if the sub names r writes take more than the limit.
func (m *model) checkNames(r *result) error {
	limit := m.opt.MaxNameBytes
	if limit <= 0 {
		limit = DefaultMaxNameBytes
	}
	var n int64
	for _, nd := range r.nodes[min(1, len(r.nodes)):] {
		n += int64(len(m.subs[nd.sub].name))
	}
	for _, si := range r.subs {
		n += int64(len(m.subs[si].name))
	}
	for i := range r.edges {
		n += int64(len(m.callerName(r.edges[i].key)) + len(m.subs[r.edges[i].key.callee].name))
	}
	if n > limit {
		return fmt.Errorf("nytprof: %w", &limits.Error{Limit: limits.NameBytes, Max: limit, Value: n})
	}
	return nil
}

// sources returns per fid (index fid-1) the file's lines with their
// newlines, or nil when it has no source.
func (m *model) sources(r *result) [][]string {
	out := make([][]string, len(r.files))
	read := m.opt.ReadSource
	if read == nil {
		return out
	}
	for i, f := range r.files {
		if f.name == unknownFile {
			continue
		}
		b, err := read(f.name)
		if err != nil || len(b) == 0 {
			continue
		}
		var lines []string
		for len(b) > 0 && len(lines) < maxLine {
			j := bytes.IndexByte(b, '\n') + 1
			if j == 0 {
				j = len(b)
			}
			lines = append(lines, string(b[:j]))
			b = b[j:]
		}
		out[i] = lines
	}
	return out
}
