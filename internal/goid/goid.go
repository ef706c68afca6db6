package goid

import "runtime"

// Current returns the calling goroutine's id, parsed from its traceback
// header, or 0 if it cannot be read.
func Current() uint64 {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	id, _, ok := ParseHeader(b[:n])
	if !ok {
		return 0
	}
	return id
}

// ParseHeader parses a traceback header, "goroutine 123 [", and returns
// the id and the rest of b after it.
func ParseHeader(b []byte) (id uint64, rest []byte, ok bool) {
	const p = "goroutine "
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return 0, nil, false
	}
	b = b[len(p):]
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		id = id*10 + uint64(b[i]-'0')
	}
	if i == 0 {
		return 0, nil, false
	}
	return id, b[i:], true
}
