package files

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
)

// A file over the size limit is refused from a stat: nothing reads or
// hashes it, so refusing a huge file is as quick as refusing a small one,
// also with checkpointing on (which used to copy the whole file first).
// The files are sparse (Truncate), so making them costs nothing; reading
// them would take seconds.
func TestOverLimitFileIsRefusedBeforeReading(t *testing.T) {
	t.Parallel()
	const quick = 1500 * time.Millisecond
	cases := []struct {
		name       string
		size       int64
		tool       tool.Tool
		checkpoint bool
		in         map[string]any
	}{
		{"edit", 16 << 30, EditTool(), false, map[string]any{"path": "big", "old_string": "a", "new_string": "b"}},
		{"write", 16 << 30, WriteTool(), false, map[string]any{"path": "big", "content": "x"}},
		{"edit, checkpointed", 1 << 30, EditTool(), true, map[string]any{"path": "big", "old_string": "a", "new_string": "b"}},
		{"write, checkpointed", 1 << 30, WriteTool(), true, map[string]any{"path": "big", "content": "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, dir := newEnv(t)
			path := filepath.Join(dir, "big")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(c.size); err != nil {
				t.Skipf("no sparse file of %d bytes here: %v", c.size, err)
			}
			f.Close()
			// The session read it (as far as the gate knows): the size
			// limit, not the gate, must be what refuses.
			env.Reads.Record(tool.ReadRecord{Path: canonical(path), Size: c.size})
			tl := c.tool
			if c.checkpoint {
				tl = checkpoint.Wrap(tl, checkpoint.ForWorkspace(dir))
			}
			start := time.Now()
			r := call(t, tl, env, c.in)
			took := time.Since(start)
			mustFail(t, r, "over the 32.0 MB", "bash")
			if took > quick {
				t.Errorf("refusing took %v; a stat should take milliseconds", took)
			}
			if fi, _ := os.Stat(path); fi.Size() != c.size {
				t.Errorf("the file changed size: %d", fi.Size())
			}
		})
	}
}
