package main

// This file imports nothing, so that TestPGO can compile it alone.

var sink uint64

// work calls mix n times: the hot call site the profile shows. It is
// small enough to be inlined into main.main, so that the profile's frame
// of work is an inlined one.
func work(n int) {
	for i := range n {
		sink += mix(uint64(i))
	}
}

// mix is over the compiler's inlining budget (80) and under its budget for
// hot call sites (2000): only a profile makes the compiler inline it.
func mix(x uint64) uint64 {
	x ^= x >> 29
	x *= 0xff51afd7ed558ccd
	x = x<<7 | x>>57
	x += 0xc4ceb9fe1a85ec53
	x ^= x >> 31
	x ^= x >> 30
	x *= 0xc4ceb9fe1a85ec53
	x = x<<8 | x>>56
	x += 0x9e3779b97f4a7c15
	x ^= x >> 30
	x ^= x >> 31
	x *= 0x9e3779b97f4a7c15
	x = x<<9 | x>>55
	x += 0xbf58476d1ce4e5b9
	x ^= x >> 29
	x ^= x >> 32
	x *= 0xbf58476d1ce4e5b9
	x = x<<10 | x>>54
	x += 0xff51afd7ed558ccd
	x ^= x >> 28
	return x
}
