//go:build !linux

package searchindex

func mapRegion(n int) []byte { return make([]byte, n) }

func unmapRegion([]byte) {}
