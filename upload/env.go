package upload

import (
	"fmt"
	"os"
	"strings"

	"github.com/gotachyon/profiler/internal/envnames"
)

// Environment variables read by FromEnv.
const (
	// EnvUpload is the store's URL (Config.URL); uploading is off when it
	// is unset or empty. A user and password in it are sent as basic
	// authentication, and logged redacted.
	EnvUpload = envnames.Upload
	// EnvService is the service name (Config.Service).
	EnvService = envnames.Service
	// EnvLabels are the static labels, k=v pairs separated by commas
	// (Config.Labels), such as "env=prod,region=eu-west-1".
	EnvLabels = envnames.Labels
)

// FromEnv returns the Config the environment asks for. ok is false when
// PROFILE_UPLOAD is unset or empty; err reports a malformed PROFILE_LABELS.
// The URL and labels are checked by New. A call tells package auto that
// PROFILE_UPLOAD is read, which it otherwise reports as having no effect.
func FromEnv() (cfg Config, ok bool, err error) {
	cfg.URL = os.Getenv(EnvUpload)
	if cfg.URL == "" {
		return Config{}, false, nil
	}
	envnames.UploadRead.Store(true)
	cfg.Service = os.Getenv(EnvService)
	cfg.Labels, err = parseLabels(os.Getenv(EnvLabels))
	if err != nil {
		return Config{}, true, err
	}
	return cfg, true, nil
}

// parseLabels parses "k=v,k=v"; spaces around names and values are
// trimmed, and empty items are skipped.
func parseLabels(s string) (map[string]string, error) {
	labels := map[string]string{}
	for item := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q: want name=value", EnvLabels, item)
		}
		if _, dup := labels[k]; dup {
			return nil, fmt.Errorf("%s: label %q given twice", EnvLabels, k)
		}
		labels[k] = v
	}
	return labels, nil
}
