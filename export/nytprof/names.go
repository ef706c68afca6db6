package nytprof

import "strings"

// subName turns a function symbol into an NYTProf sub name
// "<import path>::<rest of the symbol>": the symbol is split at the first
// '.' after the last '/' of its package path (type parameters in brackets
// are not searched for '/'), and "%2e" in the path becomes '.' again, so
// "github.com/x/y.(*T).Method" gives "github.com/x/y::(*T).Method" and
// "gopkg.in/yaml%2ev3.F" gives "gopkg.in/yaml.v3::F". A symbol without a
// package (e.g. a Python function) is put in package main. The result is
// sanitised with sanitize.
func subName(sym string) string {
	if sym == "" {
		return "main::__ANON__"
	}
	head := sym
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i]
	}
	start := strings.LastIndexByte(head, '/') + 1
	dot := strings.IndexByte(head[start:], '.')
	if dot < 0 || start+dot == 0 || start+dot == len(sym)-1 {
		return sanitize("main::" + sym)
	}
	dot += start
	pkg := strings.ReplaceAll(sym[:dot], "%2e", ".")
	return sanitize(pkg + "::" + sym[dot+1:])
}

// sanitize replaces the characters that break NYTProf's tools in a name:
// ';' and spaces (nytprofcalls and the flame graph split stacks on them),
// '"' and control characters such as newlines, each by '_'. Other bytes,
// UTF-8 included, are kept.
func sanitize(s string) string {
	return replace(s, func(r rune) bool { return r == ';' || r == ' ' || r == '"' || isControl(r) })
}

// fileName returns a file name as the NEW_FID record carries it: control
// characters become '_'. nytprofhtml names a page after each file and dies
// on a NUL byte in it ("Invalid \0 character in pathname"), and its flame
// graph reads a line per sub with the sub's file, which a line break or a
// tab splits. The name a file's source is read from (Options.ReadSource)
// is the profile's own.
func fileName(s string) string { return replace(s, isControl) }

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// replace returns s with each rune that bad reports replaced by '_'.
func replace(s string, bad func(rune) bool) string {
	if strings.IndexFunc(s, bad) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if bad(r) {
			return '_'
		}
		return r
	}, s)
}
