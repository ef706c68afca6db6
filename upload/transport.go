package upload

import (
	"github.com/gotachyon/profiler/upload/otlp"
	"github.com/gotachyon/profiler/upload/pyroscope"
)

// newTransport returns the transport of cfg's protocol.
func newTransport(cfg Config) (transport, error) {
	if cfg.Protocol == OTLP {
		return otlp.New(cfg.URL, cfg.Service, cfg.Labels)
	}
	return pyroscope.New(cfg.URL, cfg.Service, cfg.Labels)
}
