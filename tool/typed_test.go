package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

type item struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

type input struct {
	Path  string `json:"path" jsonschema:"the file to read"`
	Limit int    `json:"limit,omitempty"`
	Items []item `json:"items,omitempty"`
}

func newEcho(t *testing.T) tool.Tool {
	t.Helper()
	tl, err := tool.New(tool.Spec{Name: "echo", Label: "Echo"}, func(_ context.Context, in input, _ *tool.Env) tool.Result {
		return tool.Textf("%s:%d:%d", in.Path, in.Limit, len(in.Items))
	})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestTypedSchemaInferred(t *testing.T) {
	t.Parallel()
	var s map[string]any
	if err := json.Unmarshal(newEcho(t).Spec().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" {
		t.Errorf("type = %v, want object", s["type"])
	}
	props := s["properties"].(map[string]any)
	if d := props["path"].(map[string]any)["description"]; d != "the file to read" {
		t.Errorf("path description = %v", d)
	}
	if req, _ := s["required"].([]any); len(req) != 1 || req[0] != "path" {
		t.Errorf("required = %v, want [path]", s["required"])
	}
}

func TestTypedValidation(t *testing.T) {
	t.Parallel()
	tl := newEcho(t)
	tests := []struct {
		name, input string
		wantErr     bool
		want        string // substring of the result text
	}{
		{"ok", `{"path":"a.go","limit":3}`, false, "a.go:3:0"},
		{"nested ok", `{"path":"a","items":[{"content":"x","status":"y"}]}`, false, "a:0:1"},
		{"null input is empty object", `null`, true, `missing properties: ["path"]`},
		{"empty input is empty object", ``, true, `missing properties: ["path"]`},
		{"wrong type names field", `{"path":5}`, true, `field path: type: 5 has type "integer", want "string"`},
		{"fraction for integer", `{"path":"a","limit":1.5}`, true, `field limit`},
		{"nested field", `{"path":"a","items":[{"content":"x","status":3}]}`, true, `field items[0].status`},
		{"nested required", `{"path":"a","items":[{"content":"x"}]}`, true, `field items[0]: required`},
		{"unknown property", `{"path":"a","bogus":1}`, true, `unexpected additional properties ["bogus"]`},
		{"array input", `[1,2]`, true, "input must be a JSON object, got an array"},
		{"malformed", `{"path":`, true, "input is not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tl.Run(context.Background(), json.RawMessage(tc.input), tool.NewEnv(t.TempDir()))
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v (%s)", res.IsError, tc.wantErr, res.PlainText())
			}
			if !strings.Contains(res.PlainText(), tc.want) {
				t.Errorf("result %q does not contain %q", res.PlainText(), tc.want)
			}
			if tc.wantErr && !strings.HasPrefix(res.PlainText(), "invalid input for echo: ") {
				t.Errorf("error %q does not name the tool", res.PlainText())
			}
		})
	}
}

func TestTypedExplicitSchema(t *testing.T) {
	t.Parallel()
	_, err := tool.New(tool.Spec{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)},
		func(context.Context, input, *tool.Env) tool.Result { return tool.Result{} })
	if err == nil || !strings.Contains(err.Error(), `"type":"object"`) {
		t.Errorf("non-object schema: err = %v", err)
	}
	_, err = tool.New(tool.Spec{Name: "x", InputSchema: json.RawMessage(`{not json`)},
		func(context.Context, input, *tool.Env) tool.Result { return tool.Result{} })
	if err == nil {
		t.Error("malformed schema accepted")
	}
	// An explicit schema is enforced as given: here limit has a maximum.
	tl, err := tool.New(tool.Spec{Name: "x", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","maximum":10}},"required":["path"]}`)},
		func(context.Context, input, *tool.Env) tool.Result { return tool.Text("ran") })
	if err != nil {
		t.Fatal(err)
	}
	res := tl.Run(context.Background(), json.RawMessage(`{"path":"a","limit":11}`), nil)
	if !res.IsError || !strings.Contains(res.PlainText(), "field limit: maximum: 11 is greater than 10") {
		t.Errorf("maximum not enforced: %+v", res)
	}
}

func TestSchemaRejectsNonStruct(t *testing.T) {
	t.Parallel()
	if _, err := tool.Schema[[]string](); err == nil {
		t.Error("Schema[[]string] succeeded; a tool input must be an object")
	}
	_, err := tool.New(tool.Spec{Name: "bad"}, func(context.Context, chan int, *tool.Env) tool.Result { return tool.Result{} })
	if err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Errorf("channel input: err = %v", err)
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"read": true, "srv__echo": true, "a-b_C9": true, strings.Repeat("x", 64): true,
		"": false, "has space": false, "dot.name": false, strings.Repeat("x", 65): false, "ünï": false,
	} {
		if got := tool.ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzTypedInput(f *testing.F) {
	for _, s := range []string{`{}`, `{"path":"a"}`, `null`, `[`, `{"path":"a","items":[{"content":"x","status":"y"}]}`, `{"limit":1e400}`} {
		f.Add(s)
	}
	tl, err := tool.New(tool.Spec{Name: "fz"}, func(_ context.Context, in input, _ *tool.Env) tool.Result {
		if in.Path == "" && len(in.Items) > 0 && in.Items[0].Content == "" {
			return tool.Text("empty")
		}
		return tool.Text("ok")
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		res := tl.Run(context.Background(), json.RawMessage(s), nil)
		if len(res.Blocks) == 0 {
			t.Fatalf("no blocks for %q", s)
		}
		if res.IsError && strings.Trim(s, " \t\r\n") != "" && !json.Valid([]byte(s)) && !strings.Contains(res.PlainText(), "not valid JSON") {
			t.Fatalf("invalid JSON %q gave %q", s, res.PlainText())
		}
	})
}

// A schema that cannot be resolved (a dangling $ref) is found on the first
// call, which fails clearly instead of running unchecked.
func TestUnresolvableSchemaFailsCalls(t *testing.T) {
	t.Parallel()
	tl, err := tool.New(tool.Spec{Name: "dangling", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)},
		func(context.Context, input, *tool.Env) tool.Result { return tool.Text("ran") })
	if err != nil {
		t.Fatal(err)
	}
	res := tl.Run(context.Background(), json.RawMessage(`{}`), nil)
	if !res.IsError || !strings.Contains(res.PlainText(), "tool dangling cannot check its input") {
		t.Errorf("got %v %q", res.IsError, res.PlainText())
	}
}
