package endpoint

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:s3cretPW@host:40x0":       "http://alice:xxxxx@host:40x0",
		"http://alice:s3cretPW@host:4040/a@b":   "http://alice:xxxxx@host:4040/a@b",
		"otlp://u:p:q@collector:4317":           "otlp://u:xxxxx@collector:4317",
		"alice:s3cretPW@host:4040":              "alice:xxxxx@host:4040",
		"http://alice@host:4040":                "http://alice@host:4040",
		"http://host:4040/path?x=a:b@c":         "http://host:4040/path?x=a:b@c",
		"https://tenant:tok%20en@pyro.example/": "https://tenant:xxxxx@pyro.example/",
		"":                                      "",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	e, err := Parse("http://alice:s3cretPW@host:4040/base")
	if err != nil {
		t.Fatal(err)
	}
	// base64("alice:s3cretPW")
	if e.URL.String() != "http://host:4040/base" || e.Authorization != "Basic YWxpY2U6czNjcmV0UFc=" {
		t.Errorf("Parse = %v, %q", e.URL, e.Authorization)
	}
	if e, err := Parse("otlp://collector:4317"); err != nil || e.Authorization != "" {
		t.Errorf("Parse without credentials = %+v, %v", e, err)
	}
	if _, err := Parse("http://alice:s3%zzPW@host:4040"); err == nil || strings.Contains(err.Error(), "%zz") {
		t.Errorf("Parse of a bad escape in the password: %v, want an error without it", err)
	}
	_, err = Parse("http://alice:s3cretPW@host:40x0")
	if err == nil || strings.Contains(err.Error(), "s3cretPW") || !strings.Contains(err.Error(), "alice:xxxxx@host:40x0") {
		t.Errorf("Parse of a bad port: %v, want the redacted URL and no password", err)
	}
}
