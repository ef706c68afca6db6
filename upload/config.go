package upload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/quietpipe"
	"github.com/gotachyon/profiler/upload/internal/endpoint"
)

// Protocols of Config.Protocol.
const (
	// Pyroscope pushes to Grafana Pyroscope's push.v1.PusherService/Push
	// (Connect over HTTP); Config.URL is the server's base URL, such as
	// http://pyroscope:4040.
	Pyroscope = "pyroscope"
	// OTLP exports OTLP profiles to a collector's gRPC ProfilesService;
	// Config.URL is otlp://host:port (plain text) or otlps://host:port
	// (TLS), or http:// or https:// with Protocol set to OTLP.
	OTLP = "otlp"
)

// Defaults of the Config fields left zero.
const (
	DefaultQueueBytes     = 16 << 20
	DefaultTimeout        = 10 * time.Second
	DefaultFlushTimeout   = 5 * time.Second
	DefaultBackoffInitial = time.Second
	DefaultBackoffMax     = 30 * time.Second
)

// Config configures an Uploader. URL is required; the zero value of every
// other field is its default.
type Config struct {
	// URL is where profiles go. Its scheme chooses the protocol when
	// Protocol is empty: http and https mean Pyroscope, otlp and otlps
	// mean OTLP over gRPC (otlps with TLS). A user and password in the
	// URL (https://user:password@host) are sent with every push as HTTP
	// basic authentication: the Authorization header for Pyroscope, the
	// authorization metadata for OTLP. They travel in plain text unless
	// the scheme is https or otlps. Messages show the URL with its
	// password redacted.
	URL string
	// Protocol is Pyroscope, OTLP or "" (from the URL's scheme).
	Protocol string
	// Service names the profiled service: Pyroscope's service_name, OTLP's
	// service.name. Default: the executable's base name.
	Service string
	// Labels are static labels of every profile (Pyroscope series labels,
	// OTLP resource attributes). Names are letters, digits, '_' and '.',
	// not starting with a digit or "__"; service_name, service.name,
	// goroutine, state and wait_reason are reserved.
	Labels map[string]string
	// QueueBytes bounds the bytes of encoded payloads held waiting for a
	// push (DefaultQueueBytes, 16 MiB).
	QueueBytes int
	// Backoff is the wait between retries of a failed push.
	Backoff Backoff
	// Timeout bounds one push attempt (DefaultTimeout, 10 s).
	Timeout time.Duration
	// FlushTimeout bounds how long Segment waits for the queue to empty
	// when given the last segment (DefaultFlushTimeout, 5 s).
	FlushTimeout time.Duration
	// Logf logs failures, once per streak of failed pushes, and each
	// eviction; by default through the standard logger, as the profiler's
	// lines are (a closed standard error never raises SIGPIPE).
	Logf func(format string, args ...any)
}

// Backoff is an exponential backoff: the first retry waits about Initial,
// each further one twice as long, up to Max. Each wait is drawn at random
// between half and all of that (jitter), so that a fleet whose store came
// back does not push all at once.
type Backoff struct {
	Initial time.Duration // DefaultBackoffInitial, 1 s
	Max     time.Duration // DefaultBackoffMax, 30 s
}

// ErrConfig is wrapped by New's errors for a bad Config.
var ErrConfig = errors.New("upload: bad config")

// resolve returns c with its defaults filled in and its protocol decided,
// or an error wrapping ErrConfig.
func (c Config) resolve() (Config, error) {
	proto, err := protocolOf(c.URL, c.Protocol)
	if err != nil {
		return c, err
	}
	c.Protocol = proto
	if c.Service == "" {
		c.Service = filepath.Base(os.Args[0])
	}
	if err := checkLabels(c.Labels); err != nil {
		return c, err
	}
	c.QueueBytes = orDefault(c.QueueBytes, DefaultQueueBytes)
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.FlushTimeout = orDefault(c.FlushTimeout, DefaultFlushTimeout)
	c.Backoff.Initial = orDefault(c.Backoff.Initial, DefaultBackoffInitial)
	c.Backoff.Max = max(orDefault(c.Backoff.Max, DefaultBackoffMax), c.Backoff.Initial)
	if c.Logf == nil {
		c.Logf = quietpipe.Printf
	}
	return c, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// protocolOf returns the protocol of rawURL: proto when set, else the one
// its scheme names.
func protocolOf(rawURL, proto string) (string, error) {
	e, err := endpoint.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("%w: %w: want scheme://host[:port]", ErrConfig, err)
	}
	u := e.URL
	if u.Host == "" {
		return "", fmt.Errorf("%w: URL %q: want scheme://host[:port]", ErrConfig, endpoint.Redact(rawURL))
	}
	switch {
	case proto == Pyroscope && (u.Scheme == "http" || u.Scheme == "https"):
		return proto, nil
	case proto == OTLP && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "otlp" || u.Scheme == "otlps"):
		return proto, nil
	case proto == "" && (u.Scheme == "http" || u.Scheme == "https"):
		return Pyroscope, nil
	case proto == "" && (u.Scheme == "otlp" || u.Scheme == "otlps"):
		return OTLP, nil
	case proto != Pyroscope && proto != OTLP && proto != "":
		return "", fmt.Errorf("%w: protocol %q: want %s or %s", ErrConfig, proto, Pyroscope, OTLP)
	}
	return "", fmt.Errorf("%w: URL scheme %q does not go with protocol %q", ErrConfig, u.Scheme, proto)
}

// reserved are the label names the uploader sets itself.
var reserved = map[string]bool{
	"service_name": true, "service.name": true, "goroutine": true, "state": true, "wait_reason": true,
}

// checkLabels returns an error for a label name that is not allowed.
func checkLabels(labels map[string]string) error {
	for k := range labels {
		if reserved[k] || !validName(k) {
			return fmt.Errorf("%w: label name %q: want letters, digits, '_' and '.', not a digit or \"__\" first, and not one of service_name, goroutine, state, wait_reason", ErrConfig, k)
		}
	}
	return nil
}

// validName reports whether k is a label name Pyroscope and OTLP both take.
func validName(k string) bool {
	if k == "" || strings.HasPrefix(k, "__") {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
