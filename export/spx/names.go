package spx

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// funcName returns the SPX name of a Go function symbol as
// runtime.Frame.Function spells it: the package path and the symbol are
// joined by "::" like PHP's Class::method ("net/http.(*conn).serve" becomes
// "net/http::(*conn).serve"; "main.main.func1" becomes "main::main.func1"),
// and the result is escaped for the UI (see escape). A name without a package
// qualifier is only escaped; an empty name becomes "[unknown]".
func funcName(sym string) string {
	if sym == "" {
		return "[unknown]"
	}
	head := sym
	if i := strings.IndexByte(head, '['); i >= 0 { // type arguments may hold dots and slashes
		head = head[:i]
	}
	start := strings.LastIndexByte(head, '/') + 1
	if dot := strings.IndexByte(head[start:], '.'); dot > 0 && start+dot+1 < len(head) {
		i := start + dot
		sym = sym[:i] + "::" + sym[i+1:]
	}
	return escape(sym)
}

// escape makes s safe for the SPX UI, which decodes names as windows-1252,
// pastes them into HTML unescaped and reads one name per line: '<' and '>'
// become '{' and '}' (Python's "<module>" reads like PHP's "{closure}"), '&'
// becomes '+', a double quote becomes an apostrophe, and every other byte
// outside printable ASCII
// becomes a \uXXXX escape of its rune (\xNN for an invalid UTF-8 byte).
func escape(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&' || c == '"' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '<':
			b.WriteByte('{')
		case c == '>':
			b.WriteByte('}')
		case c == '&':
			b.WriteByte('+')
		case c == '"':
			b.WriteByte('\'')
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				fmt.Fprintf(&b, `\x%02x`, c)
				i++
				continue
			}
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			i += n
			continue
		}
		i++
	}
	return b.String()
}
