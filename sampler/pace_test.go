package sampler

import (
	"testing"
	"time"
)

// A chunk of events during which the reader waited for the runtime counts
// its work from the wait's end: rest naps for the parse, not the wait.
func TestPaceAfterWait(t *testing.T) {
	var p pacer
	p.start()
	defer p.stop()
	before := time.Now()
	p.chunk = before.Add(-time.Second) // the chunk's events began a second ago
	p.readLast = before.Add(-time.Second)
	p.batch() // the next generation's first batch, read after a wait
	if p.chunk.Before(before) {
		t.Fatalf("chunk begins %v before the wait's end", before.Sub(p.chunk))
	}
	if p.readWork != 0 {
		t.Fatalf("the wait counted as %v of reading", p.readWork)
	}
}
