package self

import (
	"os"
	"testing"
)

func TestName(t *testing.T) {
	defer func(args []string) { os.Args = args }(os.Args)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"/usr/local/bin/server", "-v"}, "server"},
		{[]string{"server"}, "server"},
		{[]string{""}, ""},
		{nil, ""},
	} {
		os.Args = c.args
		if got := Name(); got != c.want {
			t.Errorf("os.Args %q: Name() = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestExecutable(t *testing.T) {
	want, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if got, err := Executable(); got != want || err != nil {
		t.Fatalf("Executable() = %q, %v; want %q", got, err, want)
	}
}
