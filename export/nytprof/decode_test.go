package nytprof

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// This file holds a strict decoder of the NYTProf 5.0 stream used by the
// tests: it checks every record the writer emits against the format notes
// (shared/docs/nytprof-format.md) and collects what the loader would.

type decFile struct {
	fid   uint32
	flags uint32
	name  string
	src   map[uint32]string
}

type decLine struct {
	ticks uint64
	count uint64
}

type decSub struct {
	fid         uint32
	first, last uint32
}

type decCall struct {
	fid, line        uint32
	caller, callee   string
	count            uint32
	incl, excl, reci float64
	depth            uint32
}

type decReturn struct {
	depth      uint32
	incl, excl float64
	name       string
}

type decoded struct {
	attrs      map[string]string
	opts       map[string]string
	compressed bool
	pid        uint32
	start, end float64
	files      []decFile // index fid-1
	lines      map[[2]uint32]*decLine
	subs       map[string]decSub
	calls      []decCall
	returns    []decReturn
	discounts  int
}

type decoder struct {
	r   *bufio.Reader
	off int64
	d   *decoded
}

func (dc *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{dc.off}, args...)...)
}

func (dc *decoder) byte1() (byte, error) {
	b, err := dc.r.ReadByte()
	if err != nil {
		return 0, dc.errf("truncated: %w", err)
	}
	dc.off++
	return b, nil
}

func (dc *decoder) u32() (uint32, error) {
	b0, err := dc.byte1()
	if err != nil {
		return 0, err
	}
	var n int
	var v uint32
	switch {
	case b0 < 0x80:
		return uint32(b0), nil
	case b0 < 0xC0:
		n, v = 1, uint32(b0&0x3F)
	case b0 < 0xE0:
		n, v = 2, uint32(b0&0x1F)
	case b0 < 0xFF:
		n, v = 3, uint32(b0&0x0F)
	default:
		n, v = 4, 0
	}
	for i := 0; i < n; i++ {
		b, err := dc.byte1()
		if err != nil {
			return 0, err
		}
		v = v<<8 | uint32(b)
	}
	// The writer must pick the shortest form (the reader keys on byte 1).
	var min uint32
	switch n {
	case 1:
		min = 0x80
	case 2:
		min = 0x4000
	case 3:
		min = 0x200000
	case 4:
		min = 0x10000000
	}
	if v < min {
		return 0, dc.errf("u32 %d not in its shortest form", v)
	}
	return v, nil
}

func (dc *decoder) nv() (float64, error) {
	var b [8]byte
	for i := range b {
		c, err := dc.byte1()
		if err != nil {
			return 0, err
		}
		b[i] = c
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, dc.errf("bad NV %v", f)
	}
	return f, nil
}

func (dc *decoder) str() (string, error) {
	t, err := dc.byte1()
	if err != nil {
		return "", err
	}
	if t != '\'' {
		return "", dc.errf("string tag %#x, want plain 0x27", t)
	}
	n, err := dc.u32()
	if err != nil {
		return "", err
	}
	if int64(n) > 1<<24 {
		return "", dc.errf("string length %d too large", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(dc.r, b); err != nil {
		return "", dc.errf("truncated string: %w", err)
	}
	dc.off += int64(n)
	return string(b), nil
}

func (dc *decoder) line() (string, error) {
	s, err := dc.r.ReadString('\n')
	dc.off += int64(len(s))
	if err != nil {
		return "", dc.errf("unterminated text record")
	}
	return s[:len(s)-1], nil
}

func (dc *decoder) fid(what string) (uint32, error) {
	f, err := dc.u32()
	if err != nil {
		return 0, err
	}
	if f == 0 || int(f) > len(dc.d.files) {
		return 0, dc.errf("%s uses fid %d, defined: 1..%d", what, f, len(dc.d.files))
	}
	return f, nil
}

func checkName(what, s string) error {
	if !strings.Contains(s, "::") {
		return fmt.Errorf("%s %q has no '::'", what, s)
	}
	if strings.ContainsAny(s, "; \"\n\r\t") {
		return fmt.Errorf("%s %q has ';', space, '\"' or a control character", what, s)
	}
	return nil
}

// decode parses and checks a whole file.
func decode(b []byte) (*decoded, error) {
	d := &decoded{attrs: map[string]string{}, opts: map[string]string{},
		lines: map[[2]uint32]*decLine{}, subs: map[string]decSub{}}
	dc := &decoder{r: bufio.NewReader(bytes.NewReader(b)), d: d}
	hdr, err := dc.line()
	if err != nil || hdr != "NYTProf 5 0" {
		return nil, fmt.Errorf("header %q, want \"NYTProf 5 0\"", hdr)
	}
	var sawP, sawEnd, prevDiscount, binary bool
	for {
		tag, err := dc.r.ReadByte()
		if err == io.EOF {
			break
		}
		dc.off++
		if sawEnd && tag != ':' && tag != '#' {
			return nil, dc.errf("record %q after PID_END", tag)
		}
		if prevDiscount && tag != '+' {
			return nil, dc.errf("DISCOUNT not followed by TIME_LINE")
		}
		if tag != ':' && tag != '#' && tag != '!' {
			binary = true
		}
		switch tag {
		case '#':
			if _, err := dc.line(); err != nil {
				return nil, err
			}
		case ':', '!':
			s, err := dc.line()
			if err != nil {
				return nil, err
			}
			k, v, ok := strings.Cut(s, "=")
			if !ok {
				return nil, dc.errf("text record %q without '='", s)
			}
			if tag == ':' {
				d.attrs[k] = v
			} else {
				if binary {
					return nil, dc.errf("option after the binary part")
				}
				d.opts[k] = v
			}
		case 'z':
			if d.compressed {
				return nil, dc.errf("second START_DEFLATE")
			}
			d.compressed = true
			zr, err := zlib.NewReader(dc.r)
			if err != nil {
				return nil, dc.errf("zlib: %w", err)
			}
			rest, err := io.ReadAll(zr)
			if err != nil {
				return nil, dc.errf("zlib: %w", err)
			}
			dc.r = bufio.NewReader(bytes.NewReader(rest))
		case 'P':
			if sawP {
				return nil, dc.errf("second PID_START")
			}
			sawP = true
			if d.pid, err = dc.u32(); err != nil {
				return nil, err
			}
			if _, err = dc.u32(); err != nil {
				return nil, err
			}
			if d.start, err = dc.nv(); err != nil {
				return nil, err
			}
		case 'p':
			pid, err := dc.u32()
			if err != nil {
				return nil, err
			}
			if !sawP || pid != d.pid {
				return nil, dc.errf("PID_END pid %d without matching PID_START", pid)
			}
			if d.end, err = dc.nv(); err != nil {
				return nil, err
			}
			if !(d.end > d.start) {
				return nil, dc.errf("PID_END %v not after PID_START %v", d.end, d.start)
			}
			sawEnd = true
		case '@':
			var v [6]uint32
			for i := range v {
				if v[i], err = dc.u32(); err != nil {
					return nil, err
				}
			}
			name, err := dc.str()
			if err != nil {
				return nil, err
			}
			if int(v[0]) != len(d.files)+1 {
				return nil, dc.errf("NEW_FID %d, want %d (contiguous)", v[0], len(d.files)+1)
			}
			if v[3] != 0x36 && v[3] != 0x86 {
				return nil, dc.errf("NEW_FID flags %#x", v[3])
			}
			d.files = append(d.files, decFile{fid: v[0], flags: v[3], name: name, src: map[uint32]string{}})
		case '-':
			if prevDiscount {
				return nil, dc.errf("two DISCOUNTs in a row")
			}
			prevDiscount = true
			d.discounts++
			continue
		case '+':
			if d.attrs["ticks_per_sec"] != "10000000" {
				return nil, dc.errf("TIME_LINE before :ticks_per_sec=10000000")
			}
			t, err := dc.u32()
			if err != nil {
				return nil, err
			}
			if t > math.MaxInt32 {
				return nil, dc.errf("TIME_LINE ticks %d wrap negative", t)
			}
			f, err := dc.fid("TIME_LINE")
			if err != nil {
				return nil, err
			}
			l, err := dc.u32()
			if err != nil {
				return nil, err
			}
			if l == 0 || l > 65535 {
				return nil, dc.errf("TIME_LINE line %d", l)
			}
			e := d.lines[[2]uint32{f, l}]
			if e == nil {
				e = &decLine{}
				d.lines[[2]uint32{f, l}] = e
			}
			e.ticks += uint64(t)
			if !prevDiscount {
				e.count++
			}
		case 'S':
			f, err := dc.fid("SRC_LINE")
			if err != nil {
				return nil, err
			}
			l, err := dc.u32()
			if err != nil {
				return nil, err
			}
			s, err := dc.str()
			if err != nil {
				return nil, err
			}
			if d.files[f-1].flags&0x10 == 0 {
				return nil, dc.errf("SRC_LINE for fid %d flagged without source", f)
			}
			d.files[f-1].src[l] = s
		case 's':
			f, err := dc.fid("SUB_INFO")
			if err != nil {
				return nil, err
			}
			name, err := dc.str()
			if err != nil {
				return nil, err
			}
			var s decSub
			s.fid = f
			if s.first, err = dc.u32(); err != nil {
				return nil, err
			}
			if s.last, err = dc.u32(); err != nil {
				return nil, err
			}
			if err := checkName("sub", name); err != nil {
				return nil, dc.errf("%v", err)
			}
			if _, dup := d.subs[name]; dup {
				return nil, dc.errf("sub %q defined twice", name)
			}
			if s.last < s.first || s.last > 65535 {
				return nil, dc.errf("sub %q lines %d-%d", name, s.first, s.last)
			}
			d.subs[name] = s
		case 'c':
			var c decCall
			if c.fid, err = dc.fid("SUB_CALLERS"); err != nil {
				return nil, err
			}
			if c.line, err = dc.u32(); err != nil {
				return nil, err
			}
			if c.caller, err = dc.str(); err != nil {
				return nil, err
			}
			if c.count, err = dc.u32(); err != nil {
				return nil, err
			}
			for _, p := range []*float64{&c.incl, &c.excl, &c.reci} {
				if *p, err = dc.nv(); err != nil {
					return nil, err
				}
			}
			if c.depth, err = dc.u32(); err != nil {
				return nil, err
			}
			if c.callee, err = dc.str(); err != nil {
				return nil, err
			}
			if c.count == 0 {
				return nil, dc.errf("call %s -> %s with count 0", c.caller, c.callee)
			}
			if err := checkName("caller", c.caller); err != nil {
				return nil, dc.errf("%v", err)
			}
			d.calls = append(d.calls, c)
		case '<':
			var r decReturn
			if r.depth, err = dc.u32(); err != nil {
				return nil, err
			}
			if r.incl, err = dc.nv(); err != nil {
				return nil, err
			}
			if r.excl, err = dc.nv(); err != nil {
				return nil, err
			}
			if r.name, err = dc.str(); err != nil {
				return nil, err
			}
			if r.depth == 0 {
				return nil, dc.errf("SUB_RETURN depth 0")
			}
			d.returns = append(d.returns, r)
		default:
			return nil, dc.errf("unknown tag %#x", tag)
		}
		prevDiscount = false
	}
	if prevDiscount {
		return nil, errors.New("file ends after a DISCOUNT")
	}
	if !sawP || !sawEnd {
		return nil, errors.New("missing PID_START or PID_END")
	}
	for _, k := range []string{"basetime", "application", "nv_size", "ticks_per_sec", "cumulative_overhead_ticks"} {
		if _, ok := d.attrs[k]; !ok {
			return nil, fmt.Errorf("attribute %s missing", k)
		}
	}
	if d.attrs["nv_size"] != "8" || d.attrs["cumulative_overhead_ticks"] != "0" {
		return nil, errors.New("bad nv_size or cumulative_overhead_ticks")
	}
	for _, c := range d.calls {
		if _, ok := d.subs[c.callee]; !ok {
			return nil, fmt.Errorf("call to %q without SUB_INFO", c.callee)
		}
		if c.caller != runtimeCaller {
			if _, ok := d.subs[c.caller]; !ok {
				return nil, fmt.Errorf("call from %q without SUB_INFO", c.caller)
			}
		}
	}
	if err := checkPostOrder(d.returns); err != nil {
		return nil, err
	}
	return d, nil
}

// checkPostOrder checks that SUB_RETURN records form a call tree written
// children first: each node's inclusive ticks equal its exclusive ticks
// plus its children's inclusive ticks.
func checkPostOrder(rs []decReturn) error {
	if len(rs) > 0 && rs[len(rs)-1].depth != 1 {
		return errors.New("last SUB_RETURN is not a root")
	}
	pend := map[uint32]float64{}
	for i, r := range rs {
		if i > 0 && r.depth+1 < rs[i-1].depth {
			return fmt.Errorf("SUB_RETURN %d: depth %d after %d skips a parent", i, r.depth, rs[i-1].depth)
		}
		if want := r.excl + pend[r.depth+1]; math.Abs(r.incl-want) > 0.5 {
			return fmt.Errorf("SUB_RETURN %d (%s): incl %v != excl + children %v (not post-order?)", i, r.name, r.incl, want)
		}
		delete(pend, r.depth+1)
		pend[r.depth] += r.incl
	}
	return nil
}
