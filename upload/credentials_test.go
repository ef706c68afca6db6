package upload_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/upload"
)

// TestCredentials checks that a user and password in the URL reach the
// store as HTTP basic authentication (Pyroscope's Authorization header,
// OTLP's authorization metadata), and that no message shows the password:
// not the logs of pushes to a store that is down, nor New's error for a
// URL that does not parse.
func TestCredentials(t *testing.T) {
	const secret = "s3cretPW"
	const want = "Basic YWxpY2U6czNjcmV0UFc=" // base64 of alice:s3cretPW
	path := segments(t, t.TempDir(), 2)[1]
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			withUser := func(url string) string {
				scheme, host, _ := strings.Cut(url, "://")
				return scheme + "://alice:" + secret + "@" + host
			}
			u := newUploader(t, withUser(st.url(r.addr)), upload.Config{})
			u.Segment(path, true)
			if got := r.authorizations(); !slices.Equal(got, []string{want}) {
				t.Errorf("store got authorization %q, want %q", got, want)
			}
			if s := u.Stats(); s.Pushed != 1 {
				t.Errorf("stats %+v, want 1 pushed", s)
			}

			var logs syncLog
			down := st.new(t) // never up
			u = newUploader(t, withUser(st.url(down.addr)), upload.Config{FlushTimeout: 200 * time.Millisecond, Logf: logs.printf})
			u.Segment(path, true)
			if l := logs.String(); !strings.Contains(l, "push failed") || strings.Contains(l, secret) {
				t.Errorf("log of a store that is down: %q, want the failure without the password", l)
			}
		})
	}
	_, err := upload.New(upload.Config{URL: "http://alice:" + secret + "@host:40x0"})
	if !errors.Is(err, upload.ErrConfig) || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "alice:xxxxx@host:40x0") {
		t.Errorf("New with a bad port: %v, want ErrConfig naming the URL without its password", err)
	}
}
