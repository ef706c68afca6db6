package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestDocsListEveryFlag checks that docs/cli.md's table of flags has a row
// for every flag of every command, and of every format of convert, as
// "tachyon help NAME" prints them: scripts rely on the reference being
// whole.
func TestDocsListEveryFlag(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	flagLine := regexp.MustCompile(`^  -([a-z][a-z0-9-]*)`)
	format := regexp.MustCompile(`^  --to ([a-z]+)$`)
	checked := 0
	for name := range commands {
		var out bytes.Buffer
		if code := run([]string{"help", name}, &out, &out); code != exitOK {
			t.Fatalf("help %s: exit %d\n%s", name, code, out.String())
		}
		if !strings.Contains(doc, "tachyon "+name) {
			t.Errorf("docs/cli.md does not show the command %q", name)
		}
		where := name
		for _, line := range strings.Split(out.String(), "\n") {
			if m := format.FindStringSubmatch(line); m != nil {
				where = name + " --to " + m[1]
				continue
			}
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			checked++
			row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(where) + "` \\| `--?" + regexp.QuoteMeta(m[1]) + "[ `]")
			if !row.MatchString(doc) {
				t.Errorf("docs/cli.md's table of flags has no row for %s --%s", where, m[1])
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d flags; the help output no longer lists them as expected", checked)
	}
}
