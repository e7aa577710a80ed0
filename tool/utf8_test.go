package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// Raw bytes that are not UTF-8 in a tool's input are refused with a
// message that names the field and says why, instead of being turned into
// U+FFFD and acted on.
func TestInvalidUTF8InputIsRefused(t *testing.T) {
	t.Parallel()
	type in struct {
		Path    string `json:"path"`
		Content string `json:"content,omitempty"`
	}
	ran := false
	tl := tool.Must(tool.New(tool.Spec{Name: "w", Description: "test"}, func(_ context.Context, _ in, _ *tool.Env) tool.Result {
		ran = true
		return tool.Text("ok")
	}))
	cases := []struct {
		name, input, field string
	}{
		{"content", "{\"path\":\"a.txt\",\"content\":\"caf\xe9\"}", `field "content"`},
		{"path", "{\"path\":\"\xff.txt\"}", `field "path"`},
		{"both", "{\"path\":\"\xff\",\"content\":\"\xfe\"}", `fields "content", "path"`},
		{"not an object", "\"\xff\"", "the input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran = false
			r := tl.Run(context.Background(), json.RawMessage(c.input), tool.NewEnv(t.TempDir()))
			msg := r.PlainText()
			if !r.IsError || ran {
				t.Fatalf("input with invalid UTF-8 was accepted: %s", msg)
			}
			for _, want := range []string{c.field, "not valid UTF-8", "JSON text is UTF-8 and cannot carry raw invalid bytes"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
		})
	}
}
