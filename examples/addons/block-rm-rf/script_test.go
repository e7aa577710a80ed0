// Package blockrmrf holds the block-rm-rf example hook; this test runs
// its script as a hook runner would, with a request on stdin.
package blockrmrf

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestBlockRmRf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		blocked bool
	}{
		{"rm -rf /", true},
		{"rm -fr build", true},
		{"sudo rm -Rf build", true},
		{"rm -r -f build", true},
		{"rm --recursive --force build", true},
		{"rm -rfv build", true},
		{"make && rm -rf dist", true},
		{"rm -r build", false},
		{"rm -f notes.txt", false},
		{"echo rm-rf", false},
		{"trim -rf x", false},
		{"ls -la", false},
	}
	for _, tt := range tests {
		req, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_input": map[string]string{"command": tt.command}})
		cmd := exec.Command("bash", "block-rm-rf.sh")
		cmd.Stdin = bytes.NewReader(req)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if blocked := code == 2; blocked != tt.blocked || blocked && !strings.Contains(stderr.String(), "rm -rf is blocked") {
			t.Errorf("%q: exit %d, stderr %q; want blocked %v", tt.command, code, stderr.String(), tt.blocked)
		}
	}
}
