package transcript

import (
	"bufio"
	"strings"
	"testing"
)

// A transcript file is read back from the workspace, where anything may
// have written it: reading never panics, and a bad line before a good
// one is an error rather than a silent skip.
func FuzzReadLines(f *testing.F) {
	f.Add(`{"kind":"header","id":"01J0000000000000000000000"}` + "\n" + `{"kind":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}` + "\n")
	f.Add(`{"kind":"summary","text":"so far"}` + "\n" + `{"kind":"mess`)
	f.Add("not json\n{}\n")
	f.Add(`{"kind":"header","id":"01J0000000000000000000000","mac":"00"}` + "\n")
	key := make([]byte, 32)
	f.Fuzz(func(t *testing.T, data string) {
		lines, _, err := readLines("t.jsonl", bufio.NewReader(strings.NewReader(data)), key, "01J0000000000000000000000")
		if err == nil {
			Messages(lines)
		}
	})
}
