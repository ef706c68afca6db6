package upload

import (
	"errors"
	"maps"
	"testing"
)

func TestProtocolOf(t *testing.T) {
	for _, c := range []struct{ url, proto, want string }{
		{"http://pyroscope:4040", "", Pyroscope},
		{"https://profiles.example.com/pyroscope", "", Pyroscope},
		{"otlp://collector:4317", "", OTLP},
		{"otlps://collector:4317", "", OTLP},
		{"http://collector:4317", OTLP, OTLP},
		{"https://pyroscope:4040", Pyroscope, Pyroscope},
		{"otlp://collector:4317", Pyroscope, ""},
		{"ftp://host", "", ""},
		{"http://host", "zipkin", ""},
		{"pyroscope:4040", "", ""},
		{"", "", ""},
	} {
		got, err := protocolOf(c.url, c.proto)
		if got != c.want || (c.want == "") != errors.Is(err, ErrConfig) {
			t.Errorf("protocolOf(%q, %q) = %q, %v; want %q", c.url, c.proto, got, err, c.want)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	for k, ok := range map[string]bool{
		"env": true, "deployment.environment": true, "_x": true, "region_2": true,
		"": false, "2x": false, "__name__": false, "a-b": false, "service_name": false,
		"service.name": false, "goroutine": false, "state": false, "wait_reason": false, "é": false,
	} {
		if err := checkLabels(map[string]string{k: "v"}); (err == nil) != ok {
			t.Errorf("label %q: %v, want ok=%v", k, err, ok)
		}
	}
}

func TestParseLabels(t *testing.T) {
	got, err := parseLabels(" env=prod, region = eu-west-1 ,,empty=")
	want := map[string]string{"env": "prod", "region": "eu-west-1", "empty": ""}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("parseLabels = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"env", "=v", "a=1,a=2"} {
		if _, err := parseLabels(bad); err == nil {
			t.Errorf("parseLabels(%q) = nil error", bad)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvUpload, "")
	if _, ok, _ := FromEnv(); ok {
		t.Error("FromEnv without PROFILE_UPLOAD: ok")
	}
	t.Setenv(EnvUpload, "otlp://127.0.0.1:4317")
	t.Setenv(EnvService, "checkout")
	t.Setenv(EnvLabels, "env=test")
	cfg, ok, err := FromEnv()
	if !ok || err != nil || cfg.URL != "otlp://127.0.0.1:4317" || cfg.Service != "checkout" || cfg.Labels["env"] != "test" {
		t.Errorf("FromEnv = %+v, %v, %v", cfg, ok, err)
	}
	t.Setenv(EnvLabels, "env")
	if _, ok, err := FromEnv(); !ok || err == nil {
		t.Errorf("FromEnv with bad labels: ok=%v err=%v", ok, err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{}, {URL: "http://h:1", Labels: map[string]string{"goroutine": "1"}}} {
		if u, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, %v; want ErrConfig", cfg, u, err)
		}
	}
}
