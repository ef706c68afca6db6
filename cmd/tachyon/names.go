package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quoteName returns a file name for a message: as it is if it is plain
// (valid UTF-8, printable, no line break or other control character), else
// quoted as a Go string, so that a name cannot forge a line (a name
// holding "\nx: ok" would otherwise print a verify line of its own).
// The temporary copy of an unfinished profile is named as the user named
// the profile (see shownAs).
func quoteName(name string) string {
	if a, ok := shownAs[name]; ok {
		name = a
	}
	if isPlain(name) {
		return name
	}
	return strconv.Quote(name)
}

func isPlain(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// quoteNames returns msg with each of names that is not plain quoted,
// for errors of other packages that print a name as it is, and the
// temporary copy of an unfinished profile named as the user named it.
func quoteNames(msg string, names ...string) string {
	for _, n := range names {
		if a, ok := shownAs[n]; ok {
			msg = strings.ReplaceAll(msg, n, quoteName(a))
		} else if n != "" && !isPlain(n) {
			msg = strings.ReplaceAll(msg, n, strconv.Quote(n))
		}
	}
	return msg
}

// shownAs maps the temporary copy of an unfinished profile (see
// unfinished) to the name the user gave the profile, for messages: the
// copy's path means nothing to the user, and is gone once the command ends.
var shownAs = map[string]string{}
