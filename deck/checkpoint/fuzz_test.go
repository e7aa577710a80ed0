package checkpoint

import (
	"bytes"
	"testing"
)

// FuzzParseIndex feeds arbitrary bytes to the index parser, which reads a
// file anyone could have edited: it must never panic, and whatever it
// accepts must survive a save and a load unchanged.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"version":1,"nodes":[]}`))
	f.Add([]byte(`{"version":1,"nodes":[{"id":"01J","time":"2025-01-02T03:04:05Z","tools":["write"],"files":[{"path":"a.txt","exists":true,"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","size":5,"mode":420},{"path":"/abs/b","exists":false}]}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"nodes":[{"id":"x","files":[{"path":"../escape","exists":false}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := parseIndex(data, "/base")
		if err != nil {
			return
		}
		s := &DiskStore{base: "/base"}
		out, err := s.encode(x)
		if err != nil {
			t.Fatalf("encode of an accepted index failed: %v", err)
		}
		y, err := parseIndex(out, "/base")
		if err != nil {
			t.Fatalf("re-parse failed: %v\n%s", err, out)
		}
		again, err := s.encode(y)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("a save and load changed the index:\n%s\n%s", out, again)
		}
	})
}
