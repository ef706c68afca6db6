package testutil

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ownFiles are the files of testdata/vectors that are not copies.
var ownFiles = []string{"README.md", "SHA256SUMS", ".gitattributes"}

// TestVectorCopies checks the public vector copies against SHA256SUMS: every
// listed file matches its checksum and every copy is listed. With the shared
// material present, it also checks that every original has a byte-identical
// copy and every copy an original.
func TestVectorCopies(t *testing.T) {
	dir := Vectors(t)
	sums := readSums(t, filepath.Join(dir, "SHA256SUMS"))
	copies := files(t, dir, ownFiles...)
	if extra := missingFrom(copies, sums); len(extra) > 0 {
		t.Errorf("copies not listed in SHA256SUMS: %v", extra)
	}
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("listed in SHA256SUMS: %v", err)
			continue
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sums[name] {
			t.Errorf("%s: SHA-256 %x, SHA256SUMS says %s (the copies must never be edited)", name, got, sums[name])
		}
	}
	t.Run("shared", func(t *testing.T) {
		compareWithShared(t, dir, copies)
	})
}

// compareWithShared checks the copies (relative slash paths under dir)
// against the originals in the shared material.
func compareWithShared(t *testing.T, dir string, copies map[string]bool) {
	orig := Shared(t, "testdata")
	originals := files(t, orig)
	if missing := missingFrom(originals, copies); len(missing) > 0 {
		t.Errorf("shared vectors without a copy in %s: %v", dir, missing)
	}
	if stale := missingFrom(copies, originals); len(stale) > 0 {
		t.Errorf("copies without a shared original in %s: %v", orig, stale)
	}
	for name := range originals {
		if !copies[name] {
			continue
		}
		a, errA := os.ReadFile(filepath.Join(orig, filepath.FromSlash(name)))
		b, errB := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errA != nil || errB != nil {
			t.Errorf("%s: %v, %v", name, errA, errB)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the copy differs from the shared original", name)
		}
	}
}

// readSums parses a sha256sum listing into checksums by slash path.
func readSums(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), " ")
		name = strings.TrimPrefix(name, " ") // text mode
		name = strings.TrimPrefix(name, "*") // binary mode
		if !ok || len(sum) != 2*sha256.Size || name == "" {
			t.Fatalf("%s:%d: not a sha256sum line: %q", path, n, sc.Text())
		}
		sums[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sums) == 0 {
		t.Fatalf("%s lists no files", path)
	}
	return sums
}

// files returns the slash paths of the regular files under dir, except the
// top-level ones named in skip.
func files(t *testing.T, dir string, skip ...string) map[string]bool {
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(skip, rel) {
			out[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// missingFrom returns the sorted keys of have that want lacks.
func missingFrom[A, B any](have map[string]A, want map[string]B) []string {
	var out []string
	for k := range have {
		if _, ok := want[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
