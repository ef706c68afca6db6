package textdist

import (
	"fmt"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"OUT", "OUT", 0}, {"OTU", "OUT", 1}, {"infos", "info", 1},
		{"SEGEMENT", "SEGMENT", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func ExampleDistance() {
	fmt.Println(Distance("PROFILE_OTU", "PROFILE_OUT"), Distance("infos", "info"))
	// Output: 1 1
}
