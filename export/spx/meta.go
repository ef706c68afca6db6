package spx

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// reportMeta is the context of a report written into KEY.json.
type reportMeta struct {
	Key         string    // report key = base name of both files (see reportKey)
	Start       time.Time // profile start (exec_ts)
	Host        string
	PID         int
	TID         uint64 // thread (goroutine) id or 0
	Dir         string // working directory of the profiled process
	CommandLine string // the profiled program's arguments, joined by spaces
	Custom      string // shown in the UI's list; "" writes null
	PeakMemory  uint64 // bytes, 0 when unknown
}

// meta is KEY.json, with SPX's field order.
type meta struct {
	Key                 string   `json:"key"`
	ExecTS              int64    `json:"exec_ts"`
	HostName            string   `json:"host_name"`
	ProcessPID          int      `json:"process_pid"`
	ProcessTID          uint64   `json:"process_tid"`
	ProcessPwd          string   `json:"process_pwd"`
	CLI                 int      `json:"cli"`
	CLICommandLine      string   `json:"cli_command_line"`
	HTTPRequestURI      string   `json:"http_request_uri"`
	HTTPMethod          string   `json:"http_method"`
	HTTPHost            string   `json:"http_host"`
	CustomMetadataStr   *string  `json:"custom_metadata_str"`
	WallTimeMs          uint64   `json:"wall_time_ms"`
	PeakMemoryUsage     uint64   `json:"peak_memory_usage"`
	CalledFunctionCount int      `json:"called_function_count"`
	CallCount           uint64   `json:"call_count"`
	RecordedCallCount   uint64   `json:"recorded_call_count"`
	EnabledMetrics      []string `json:"enabled_metrics"`
}

// writeMeta writes KEY.json for a report summarized by s. wall_time_ms
// holds microseconds, as SPX writes it (the UI formats value×1000 as ns).
func writeMeta(w io.Writer, m reportMeta, s Summary) error {
	var custom *string
	if m.Custom != "" {
		c := m.Custom
		custom = &c
	}
	v := meta{
		Key: m.Key, ExecTS: m.Start.Unix(), HostName: m.Host, ProcessPID: m.PID,
		ProcessTID: m.TID, ProcessPwd: m.Dir, CLI: 1, CLICommandLine: m.CommandLine,
		HTTPRequestURI: "n/a", HTTPMethod: "n/a", HTTPHost: "n/a",
		CustomMetadataStr: custom, WallTimeMs: s.WallTime / 1000,
		PeakMemoryUsage: m.PeakMemory, CalledFunctionCount: s.Functions,
		CallCount: s.Calls, RecordedCallCount: s.Calls, EnabledMetrics: s.Metrics,
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("spx: metadata: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("spx: writing metadata: %w", err)
	}
	return nil
}

// reportKey returns a report key in SPX's form spx-full-YYYYMMDD_HHMMSS-HOST-PID-RAND
// (local time), with every character outside [A-Za-z0-9._-] of host and
// rand replaced by '_' so the key survives the UI's unencoded ?key= URL.
// SPX's RAND is a random decimal number; any distinguishing string works.
func reportKey(start time.Time, host string, pid int, rand string) string {
	return fmt.Sprintf("spx-full-%s-%s-%d-%s", start.Local().Format("20060102_150405"), keySafe(host, "localhost"), pid, keySafe(rand, "0"))
}

func keySafe(s, empty string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
	if clean == "" {
		return empty
	}
	return clean
}
