package endpoint

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Bounds on what a client reads from a store. A store answers a push with
// an empty or small message, so anything longer is a broken or hostile
// store: the read stops there and the push fails.
const (
	// MaxResponseBytes bounds a response message, compressed or not.
	MaxResponseBytes = 64 << 10
	// MaxErrorBytes bounds the prefix of an error response's body that is
	// read for its message; the rest is not read.
	MaxErrorBytes = 4 << 10
	// MaxHeaderBytes bounds a response's headers.
	MaxHeaderBytes = 64 << 10
)

// Endpoint is a store's URL split from its credentials.
type Endpoint struct {
	// URL is the URL without its user information.
	URL *url.URL
	// Authorization is the value of the Authorization header (HTTP basic
	// authentication) of the URL's user and password, or "" when the URL
	// has none.
	Authorization string
}

// Parse parses rawURL. Its error does not repeat rawURL, which may hold a
// password: it says what is wrong with the redacted URL.
func Parse(rawURL string) (Endpoint, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var ee url.EscapeError
		if errors.As(err, &ee) {
			err = errors.New("invalid URL escape") // the escape may be part of the password
		}
		return Endpoint{}, fmt.Errorf("URL %q: %w", Redact(rawURL), err)
	}
	e := Endpoint{URL: u}
	if u.User != nil {
		pw, _ := u.User.Password()
		e.Authorization = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
		stripped := *u
		stripped.User = nil
		e.URL = &stripped
	}
	return e, nil
}

// Redact returns rawURL with its password, if any, replaced by "xxxxx",
// as url.URL.Redacted does, for any string: one that does not parse, or
// that lacks its scheme ("user:password@host"), is redacted too.
func Redact(rawURL string) string {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		rest = rawURL
	}
	start := len(rawURL) - len(rest)
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	colon := strings.Index(rest[:max(at, 0)], ":")
	if at < 0 || colon < 0 {
		return rawURL
	}
	return rawURL[:start+colon+1] + "xxxxx" + rawURL[start+at:]
}
