package gotrace

import (
	"fmt"
	"io"
)

// Generations is a trace handed over in memory (package handoff's Pipe):
// its header, then one generation at a time, which a Reader parses where
// it lies instead of copying it.
type Generations interface {
	// Header waits for the trace's 16-byte header and returns it.
	Header() ([]byte, error)
	// NextGeneration returns the next generation, its batches through its
	// end-of-generation byte, to be read until the next call; io.EOF
	// after the last. It takes back done, the generation returned before,
	// which the caller no longer reads.
	NextGeneration(done []byte) ([]byte, error)
}

// newGenReader reads the generations of src, whose header it checks.
func newGenReader(src Generations) (*Reader, error) {
	h, err := src.Header()
	if err != nil {
		return nil, fmt.Errorf("gotrace: reading header: %w", noEOF(err))
	}
	if string(h) != header {
		return nil, ErrVersion
	}
	r := newReader(nil)
	r.src = src
	return r, nil
}

// readGen takes the next generation of src and indexes it in place. The
// generation before is let go first: nothing reads it after its last
// event (its stacks and strings go with it).
func (r *Reader) readGen() error {
	r.gen.reset()
	r.gen.data = nil
	data, err := r.src.NextGeneration(r.piece)
	r.piece = data
	if err != nil {
		return err
	}
	return r.gen.index(data, r.Pace)
}

// index makes data, a whole generation, the generation's data and files
// its batches; pace is called after each.
func (g *generation) index(data []byte, pace func()) error {
	g.data = data
	for i := 0; ; {
		if i >= len(data) {
			return fmt.Errorf("generation %d: %w", g.num, io.ErrUnexpectedEOF)
		}
		if data[i] == evEndOfGeneration {
			if i != len(data)-1 {
				return fmt.Errorf("generation %d: %d bytes after its end", g.num, len(data)-1-i)
			}
			break
		}
		next, err := g.indexBatch(i)
		if err != nil {
			return fmt.Errorf("generation %d: %w", g.num, err)
		}
		i = next
		if pace != nil {
			pace()
		}
	}
	return g.finish()
}

// indexBatch files the batch at data[i:] and returns the offset past it.
func (g *generation) indexBatch(i int) (int, error) {
	d := g.data
	typ := d[i]
	exp := typ == evExperimentalBatch
	if typ != evEventBatch && !exp {
		return 0, fmt.Errorf("expected a batch, found event type %d", typ)
	}
	i++
	if exp {
		i++ // the experiment
	}
	var hdr [4]uint64 // generation, thread, timestamp, size
	for k := range hdr {
		if i >= len(d) {
			return 0, fmt.Errorf("batch header: %w", io.ErrUnexpectedEOF)
		}
		v, j, err := uvarint(d, i)
		if err != nil {
			return 0, fmt.Errorf("batch header: %w", err)
		}
		hdr[k], i = v, j
	}
	if err := g.checkHeader(hdr); err != nil {
		return 0, err
	}
	m, ts, size := hdr[1], hdr[2], hdr[3]
	end := i + int(size)
	if end > len(d) {
		return 0, fmt.Errorf("batch data: %w", io.ErrUnexpectedEOF)
	}
	if exp {
		return end, nil // experiments are not read
	}
	if g.minTs == 0 || ts < g.minTs {
		g.minTs = ts
	}
	return end, g.classify(batch{m: m, time: ts, off: i, end: end, next: -1})
}
