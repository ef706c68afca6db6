package gotrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestDecodeVarints reads one GoStatus event (a time delta and three
// arguments) from a batch: its uvarints one to ten bytes long, and ones
// cut short or past 64 bits, which are errors naming the batch.
func TestDecodeVarints(t *testing.T) {
	max := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for _, c := range []struct {
		name string
		ev   []byte
		want [4]uint64 // the time delta and the arguments
		err  bool
	}{
		{"one byte each", []byte{evGoStatus, 5, 1, 2, 3}, [4]uint64{5, 1, 2, 3}, false},
		{"longer", []byte{evGoStatus, 0x80, 0x01, 0xa0, 0x8d, 0x06, 0x7f, 0}, [4]uint64{128, 100000, 127, 0}, false},
		{"64 bits", cat([]byte{evGoStatus, 1}, max, []byte{2, 3}), [4]uint64{1, 1<<64 - 1, 2, 3}, false},
		{"past 64 bits", cat([]byte{evGoStatus, 1}, max[:9], []byte{0x02, 2, 3}), [4]uint64{}, true},
		{"eleven bytes", cat([]byte{evGoStatus, 1}, max[:9], []byte{0x81, 0x01, 2, 3}), [4]uint64{}, true},
		{"cut short", []byte{evGoStatus, 5, 1, 0x80}, [4]uint64{}, true},
		{"an argument missing", []byte{evGoStatus, 5, 1, 2}, [4]uint64{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Reader{}
			r.gen.num, r.gen.freq = 3, 1
			r.gen.data = c.ev
			r.gen.batches = []batch{{off: 0, end: len(c.ev), next: -1}}
			cur := &cursor{end: len(c.ev)}
			ok, err := r.decode(cur)
			if c.err {
				if err == nil || !errors.Is(err, errShort) {
					t.Fatalf("decode = %v, %v; want errShort", ok, err)
				}
				return
			}
			if err != nil || !ok {
				t.Fatalf("decode = %v, %v", ok, err)
			}
			got := [4]uint64{uint64(cur.time), cur.args[0], cur.args[1], cur.args[2]}
			if got != c.want || cur.off != len(c.ev) || cur.typ != evGoStatus {
				t.Errorf("read %v, off %d, type %d; want %v, %d, %d", got, cur.off, cur.typ, c.want, len(c.ev), evGoStatus)
			}
		})
	}
}

// decode holds an event's arguments in four slots (cursor.args).
func TestNargsFit(t *testing.T) {
	for typ, n := range nargs {
		if int(n) > len(cursor{}.args) {
			t.Errorf("event type %d has %d arguments, more than a cursor holds", typ, n)
		}
	}
}

// TestLongVarint compares longVarint with encoding/binary on varints of
// every length, each with and without eight bytes of room after its start
// (the word read and the byte loop), and on ones cut short.
func TestLongVarint(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for bitsLen := 8; bitsLen <= 64; bitsLen++ {
		for range 50 {
			v := rnd.Uint64() >> (64 - bitsLen)
			v |= 1 << (bitsLen - 1)
			enc := binary.AppendUvarint(nil, v)
			for _, pad := range [][]byte{nil, {0x7f}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}} {
				d := append(append([]byte{0xaa}, enc...), pad...)
				got, j, ok := longVarint(d, 1)
				if !ok || got != v || j != 1+len(enc) {
					t.Fatalf("%x+%x: got %d, %d, %v; want %d, %d", enc, pad, got, j, ok, v, 1+len(enc))
				}
				if _, _, ok := longVarint(d[:len(enc)], 1); ok {
					t.Fatalf("%x cut short: no error", enc)
				}
			}
		}
	}
	for _, v := range []uint64{^uint64(0), ^uint64(0) - 1, ^uint64(0) >> 1, 1<<63 | 1} {
		d := binary.AppendUvarint(nil, v)
		if got, j, ok := longVarint(d, 0); !ok || got != v || j != len(d) {
			t.Errorf("%x: got %d, %d, %v; want %d", d, got, j, ok, v)
		}
	}
	long := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for _, d := range [][]byte{nil, {0x80}, append(long, 0x02), append(long, 0x81, 0x01), append(long, 0x81, 0x01, 0, 0)} {
		if _, _, ok := longVarint(d, 0); ok {
			t.Errorf("%x: no error", d)
		}
	}
	if _, _, ok := longVarint([]byte{0x80, 0x01}, 3); ok {
		t.Error("past the end: no error")
	}
}

// TestDecodeStatusAsDecode: decodeStatus, statusRun's read of the next
// event, reads what decode reads, wherever it takes the event itself and
// wherever it hands it on: status reports whose uvarints are one to ten
// bytes long (non-minimal ones among them), threads of none and ones that
// start like it, other events, and reports near their batch's end or cut
// short there.
func TestDecodeStatusAsDecode(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	uvarint := func() []byte {
		switch rnd.IntN(8) {
		case 0: // none, as a thread
			return []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
		case 1: // eight bytes of 0xff that are not none
			return []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80 | byte(rnd.IntN(128)), byte(rnd.IntN(2))}
		case 2: // not minimal
			return append(bytes.Repeat([]byte{0x80}, 1+rnd.IntN(4)), 0)
		case 3, 4: // one byte
			return []byte{byte(rnd.IntN(128))}
		case 5, 6: // up to four
			return binary.AppendUvarint(nil, uint64(rnd.IntN(1<<28)))
		}
		return binary.AppendUvarint(nil, rnd.Uint64()>>rnd.IntN(64))
	}
	types := []byte{evGoStatus, evGoStatusStack, evGoStatusStack, evGoStart}
	var same, fast int
	for range 20000 {
		typ := types[rnd.IntN(len(types))]
		ev := []byte{typ}
		ev = append(ev, uvarint()...) // the time delta
		for range nargs[typ] {
			ev = append(ev, uvarint()...)
		}
		start := rnd.IntN(3) // where the event begins in its batch
		data := append(bytes.Repeat([]byte{0xaa}, start), ev...)
		switch rnd.IntN(4) {
		case 0: // the batch ends with the event
		case 1: // cut short
			data = data[:len(data)-1-rnd.IntN(min(len(ev)-1, 4))]
		default:
			for range rnd.IntN(2 * statusWindow) {
				data = append(data, byte(rnd.IntN(256)))
			}
		}
		gok := decodeBoth(t, data, start)
		same++
		if gok && start+statusWindow <= len(data) && typ != evGoStart {
			fast++
		}
	}
	if fast < same/4 {
		t.Errorf("only %d of %d events in the window decodeStatus reads itself", fast, same)
	}
}

// decodeBoth reads the event at data[start:], a batch of its own, with
// decode and with decodeStatus, fails t if they differ, and returns
// whether an event was read.
func decodeBoth(t *testing.T, data []byte, start int) bool {
	t.Helper()
	read := func(f func(*Reader, *cursor) (bool, error)) (cursor, bool, error) {
		r := &Reader{}
		r.gen.num, r.gen.freq = 3, 1.5
		r.gen.data = data
		r.gen.batches = []batch{{off: 0, end: len(data), next: -1}}
		c := cursor{off: start, end: len(data), last: 7}
		ok, err := f(r, &c)
		return c, ok, err
	}
	want, wok, werr := read((*Reader).decode)
	got, gok, gerr := read((*Reader).decodeStatus)
	if wok != gok || (werr == nil) != (gerr == nil) || want != got {
		t.Fatalf("batch % x from %d:\ndecode       %v %v %+v\ndecodeStatus %v %v %+v", data, start, wok, werr, want, gok, gerr, got)
	}
	return gok
}

// FuzzDecodeStatus: decodeStatus reads any batch as decode does, from any
// place in it. The seeds in testdata/fuzz/FuzzDecodeStatus are status
// reports of the shapes it reads itself and of ones it hands on.
func FuzzDecodeStatus(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, start uint8) {
		if len(data) == 0 {
			return
		}
		decodeBoth(t, data, int(start)%len(data))
	})
}
