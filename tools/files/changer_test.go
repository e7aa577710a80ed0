package files_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/files"
)

// TestWriteAndEditSayWhatTheyChange: checkpointing asks the tools, not a
// list of names, which files a call will change.
func TestWriteAndEditSayWhatTheyChange(t *testing.T) {
	t.Parallel()
	for _, tl := range []tool.Tool{files.WriteTool(), files.EditTool()} {
		fc, ok := tl.(tool.FileChanger)
		if !ok {
			t.Fatalf("%s is not a tool.FileChanger", tl.Spec().Name)
		}
		got, err := fc.ChangedPaths(json.RawMessage(`{"path":"src/a.go","content":"x","old_string":"a","new_string":"b"}`))
		if err != nil || !slices.Equal(got, []string{"src/a.go"}) {
			t.Errorf("%s: ChangedPaths = %v, %v; want [src/a.go]", tl.Spec().Name, got, err)
		}
		for _, bad := range []string{`{}`, `{"path":7}`, `[]`} {
			if got, err := fc.ChangedPaths(json.RawMessage(bad)); err == nil {
				t.Errorf("%s: ChangedPaths(%s) = %v, want an error", tl.Spec().Name, bad, got)
			}
		}
	}
	for _, tl := range []tool.Tool{files.ReadTool(), files.LsTool()} {
		if _, ok := tl.(tool.FileChanger); ok {
			t.Errorf("%s claims to change files", tl.Spec().Name)
		}
	}
}
