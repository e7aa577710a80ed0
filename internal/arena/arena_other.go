//go:build !linux

package arena

func mapRegion(n int, _ bool) []byte { return make([]byte, n) }

func unmapRegion([]byte) {}
