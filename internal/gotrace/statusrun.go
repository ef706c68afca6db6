package gotrace

import "encoding/binary"

// A generation's status reports come one after another on a thread, most
// of them a goroutine parked where it was: statusRun reads each next one
// with decodeStatus, which takes the common shape of a report in straight
// code over a window of the batch checked once, and leaves any other
// event, or a report near its batch's end, to decode.

// statusWindow is the window decodeStatus reads from: the longest report
// it takes (a type; a time delta, an id, a status and a stack of at most
// four bytes each; a thread of at most four, or the ten bytes of none)
// is 27 bytes, and a uvarint of more than one byte is read as the word
// at its start, which ends within the window.
const statusWindow = 32

// decodeStatus is decode for the event after a status report. Each
// uvarint's first byte is tested inline: most are one byte.
func (r *Reader) decodeStatus(c *cursor) (bool, error) {
	if c.off+statusWindow > c.end {
		return r.decode(c)
	}
	p := (*[statusWindow]byte)(r.gen.data[c.off : c.off+statusWindow])
	typ := p[0]
	if typ != evGoStatus && typ != evGoStatusStack {
		return r.decode(c)
	}
	// j stays at most 23 before each read below: every read adds at
	// most four bytes, the thread of none ten. A uvarint longer than
	// four bytes goes to decode.
	var ok bool
	dt, j := uint64(p[1]), 2
	if dt >= 0x80 {
		if dt, j, ok = wordVarint(p, 1); !ok {
			return r.decode(c)
		}
	}
	id := uint64(p[j])
	if j++; id >= 0x80 {
		if id, j, ok = wordVarint(p, j-1); !ok {
			return r.decode(c)
		}
	}
	mid := uint64(p[j])
	if j++; mid >= 0x80 {
		if x := binary.LittleEndian.Uint64(p[j-1:]); noThread(p[:], j-1, x) {
			mid, j = ^uint64(0), j+9
		} else if mid, j, ok = wordVarint(p, j-1); !ok {
			return r.decode(c)
		}
	}
	st := uint64(p[j])
	if j++; st >= 0x80 {
		if st, j, ok = wordVarint(p, j-1); !ok {
			return r.decode(c)
		}
	}
	var stack uint64
	if typ == evGoStatusStack {
		stack = uint64(p[j])
		if j++; stack >= 0x80 {
			if stack, j, ok = wordVarint(p, j-1); !ok {
				return r.decode(c)
			}
		}
	}
	c.args = [4]uint64{id, mid, st, stack}
	c.typ, c.off = typ, c.off+j
	c.time = r.gen.mul(dt) + c.last
	c.last = c.time
	return true, nil
}

// wordVarint reads the uvarint at p[j:], of two to four bytes, as the word
// there; false if it is longer, and j as it was.
func wordVarint(p *[statusWindow]byte, j int) (uint64, int, bool) {
	x := binary.LittleEndian.Uint64(p[j:])
	if ends := ^x & 0x8080808080808080; ends&0x80808080 != 0 {
		v, n := fourBytes(x, ends)
		return v, j + n, true
	}
	return 0, j, false
}
