package files

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// Two sessions that read one file and then change it at the same instant
// must not both succeed: the second is refused with "changed since it was
// read", so no reported change is ever lost. 200 pairs per tool; without
// the per-file lock a few pairs both report success and one change
// vanishes.
func TestConcurrentChangesLoseNoUpdate(t *testing.T) {
	t.Parallel()
	const pairs = 200
	cases := []struct {
		name string
		tool tool.Tool
		// in is the input of session k (0 or 1), changing line k.
		in   func(k int) any
		want func(k int) string // what the file must hold if k succeeded
	}{
		{
			name: "edit",
			tool: EditTool(),
			in: func(k int) any {
				return map[string]any{"path": "f.txt", "old_string": fmt.Sprintf("line%d old", k), "new_string": fmt.Sprintf("line%d new", k)}
			},
			want: func(k int) string { return fmt.Sprintf("line%d new", k) },
		},
		{
			name: "write",
			tool: WriteTool(),
			in: func(k int) any {
				return map[string]any{"path": "f.txt", "content": fmt.Sprintf("written by %d\n", k)}
			},
			want: func(k int) string { return fmt.Sprintf("written by %d", k) },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			lost, refused := 0, 0
			for range pairs {
				writeFile(t, path, "line0 old\nline1 old\n")
				envs := []*tool.Env{tool.NewEnv(dir), tool.NewEnv(dir)}
				for _, env := range envs {
					mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "f.txt"}))
				}
				var (
					wg    sync.WaitGroup
					start = make(chan struct{})
					res   [2]tool.Result
				)
				for k := range 2 {
					wg.Go(func() {
						<-start
						res[k] = call(t, c.tool, envs[k], c.in(k))
					})
				}
				close(start)
				wg.Wait()
				final := readFile(t, path)
				for k := range 2 {
					if !res[k].IsError {
						if !strings.Contains(final, c.want(k)) {
							lost++
						}
						continue
					}
					refused++
					if msg := text(res[k]); !strings.Contains(msg, "changed since it was read") {
						t.Fatalf("session %d was refused for another reason: %s", k, msg)
					}
				}
			}
			if lost > 0 {
				t.Errorf("%d of %d pairs lost a change that was reported as made", lost, pairs)
			}
			if refused != pairs {
				t.Errorf("%d refusals in %d pairs, want exactly one per pair", refused, pairs)
			}
		})
	}
}
