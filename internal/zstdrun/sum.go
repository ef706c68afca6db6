package zstdrun

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// contentSum is a frame's content checksum (XXH64, RFC 8878 3.1.1): what
// reads the expanded bytes of the repeats, which it takes from a copy of
// the pattern repeated.
type contentSum struct {
	d      *xxhash.Digest
	expPat []byte // the pattern exp repeats
	exp    []byte
}

// sumExpand is the most of a pattern repeated that exp holds.
const sumExpand = 4 << 10

func newContentSum() contentSum { return contentSum{d: xxhash.New()} }

func (c *contentSum) reset() { c.d.Reset() }

// write adds b.
func (c *contentSum) write(b []byte) { c.d.Write(b) }

// repeat adds pat repeated n times.
func (c *contentSum) repeat(pat []byte, n int) {
	left := len(pat) * n
	if left == 0 {
		return
	}
	if !bytes.Equal(pat, c.expPat) {
		c.expPat = append(c.expPat[:0], pat...)
		c.exp = c.exp[:0]
	}
	for len(c.exp) < left && len(c.exp)+len(pat) <= sumExpand {
		c.exp = append(c.exp, pat...)
	}
	for left >= len(c.exp) {
		c.d.Write(c.exp)
		left -= len(c.exp)
	}
	c.d.Write(c.exp[:left])
}

// sum64 returns the hash of everything added.
func (c *contentSum) sum64() uint64 { return c.d.Sum64() }
