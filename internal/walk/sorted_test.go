package walk

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestSortedIsPathOrder(t *testing.T) {
	t.Parallel()
	// Names whose order differs between "sort each directory" and "sort
	// the whole paths": '-' and '.' sort before '/', so "a-b" comes before
	// everything under "a/".
	root := tree(t, map[string]string{
		"a/b":        "",
		"a/c/d":      "",
		"a-b":        "",
		"a.b":        "",
		"a0":         "",
		"A":          "",
		"b/.ignore":  "skip*\n",
		"b/skip.txt": "",
		"b/keep.txt": "",
		"é":          "",
		"z/y/x/w":    "",
		"empty/":     "",
	})
	var got []string
	var stats Stats
	for f := range Sorted(t.Context(), Config{Root: root}, &stats) {
		got = append(got, filepath.ToSlash(strings.TrimPrefix(f.Path, root+string(filepath.Separator))))
	}
	want := walked(t, root, Filter{}) // every admitted file, sorted whole
	if !slices.Equal(got, want) {
		t.Errorf("Sorted yields\n%q\nwant (the sorted list of Walk)\n%q", got, want)
	}
	if !slices.IsSorted(got) || slices.Contains(got, "b/skip.txt") || !slices.Contains(got, "b/.ignore") {
		t.Errorf("order or ignore rules wrong: %q", got)
	}
}

func TestSortedAgreesWithWalkOnGoroot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(runtime.GOROOT(), "src", "net")
	var got []string
	var stats Stats
	for f := range Sorted(t.Context(), Config{Root: root}, &stats) {
		got = append(got, f.Path)
	}
	want := walked(t, root, Filter{})
	for i := range want {
		want[i] = filepath.Join(root, filepath.FromSlash(want[i]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sorted and Walk disagree: %d and %d files", len(got), len(want))
	}
}

func TestSortedStops(t *testing.T) {
	t.Parallel()
	root := filepath.Join(runtime.GOROOT(), "src", "net")
	var stats Stats
	n := 0
	for range Sorted(t.Context(), Config{Root: root}, &stats) {
		if n++; n == 3 {
			break
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := 0
	for range Sorted(ctx, Config{Root: root}, &stats) {
		m++
	}
	// The root's own files may come before the first check of ctx, never
	// a subdirectory's.
	if n != 3 || m > 200 {
		t.Errorf("early stop: took %d after break, %d after cancel", n, m)
	}
}
