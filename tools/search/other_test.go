//go:build !unix

package search

import "testing"

func hugeDir(t *testing.T, _ uint64) string { return t.TempDir() }
