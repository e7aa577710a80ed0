package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

type tuned struct {
	Mode  string   `json:"mode,omitempty"`
	Limit int      `json:"limit,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Flag  *bool    `json:"flag,omitempty"`
}

func runTuned(_ context.Context, in tuned, _ *tool.Env) tool.Result {
	return tool.Textf("%s %d", in.Mode, in.Limit)
}

// tunedSchema is kept in a package variable, as tools built per session
// keep theirs.
var tunedSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetEnum(s, "mode", "fast", "slow")
	tool.SetDefault(s, "mode", "fast")
	tool.SetRange(s, "limit", 1, 10)
	tool.NotNull(s, "tags")
	tool.NotNull(s, "flag")
	tool.SetDefault(s, "flag", true)
})

// TestWithSchemaShapesWhatTheModelSeesAndWhatIsChecked: the edits show in
// the schema and are enforced on input.
func TestWithSchemaShapesWhatTheModelSeesAndWhatIsChecked(t *testing.T) {
	t.Parallel()
	tl := tool.Must(tool.New(tool.Spec{Name: "tuned"}, runTuned, tunedSchema))
	var s struct {
		Properties map[string]struct {
			Type    any             `json:"type"`
			Enum    []string        `json:"enum"`
			Default json.RawMessage `json:"default"`
			Minimum *float64        `json:"minimum"`
			Maximum *float64        `json:"maximum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.Spec().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	if strings.Join(p["mode"].Enum, ",") != "fast,slow" || string(p["mode"].Default) != `"fast"` {
		t.Errorf("mode = %+v, want enum fast,slow and default fast", p["mode"])
	}
	if p["limit"].Minimum == nil || *p["limit"].Minimum != 1 || p["limit"].Maximum == nil || *p["limit"].Maximum != 10 {
		t.Errorf("limit bounds = %v..%v, want 1..10", p["limit"].Minimum, p["limit"].Maximum)
	}
	if p["tags"].Type != "array" || p["flag"].Type != "boolean" || string(p["flag"].Default) != "true" {
		t.Errorf("tags type %v, flag type %v default %s: want array, boolean, true", p["tags"].Type, p["flag"].Type, p["flag"].Default)
	}
	for in, want := range map[string]string{
		`{"mode":"medium"}`: "mode",
		`{"limit":11}`:      "limit",
		`{"tags":null}`:     "tags",
	} {
		if r := tl.Run(context.Background(), json.RawMessage(in), nil); !r.IsError || !strings.Contains(r.PlainText(), want) {
			t.Errorf("input %s: got %v, want an error naming %s", in, r, want)
		}
	}
	if r := tl.Run(context.Background(), json.RawMessage(`{"mode":"slow","limit":3}`), nil); r.IsError || r.PlainText() != "slow 3" {
		t.Errorf("valid input: %v", r)
	}
}

// TestWithSchemaBuildsOnce: a second tool from the same option shows the
// same bytes, and a caller scribbling on a handed-out schema changes
// neither.
func TestWithSchemaBuildsOnce(t *testing.T) {
	t.Parallel()
	a := tool.Must(tool.New(tool.Spec{Name: "a"}, runTuned, tunedSchema)).Spec().InputSchema
	want := bytes.Clone(a)
	for i := range a {
		a[i] = '!'
	}
	b := tool.Must(tool.New(tool.Spec{Name: "b"}, runTuned, tunedSchema)).Spec().InputSchema
	if !bytes.Equal(b, want) {
		t.Errorf("second tool's schema = %.60q…, want the first's", b)
	}
}

func TestWithSchemaMistakesAreErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec tool.Spec
		opts []tool.Option
		want string
	}{
		{"missing property", tool.Spec{Name: "x"}, []tool.Option{tool.WithSchema(func(s *jsonschema.Schema) {
			tool.SetDefault(s, "lmit", 3)
		})}, `no property "lmit"`},
		{"not nullable", tool.Spec{Name: "x"}, []tool.Option{tool.WithSchema(func(s *jsonschema.Schema) {
			tool.NotNull(s, "mode")
		})}, ""},
		{"type changed", tool.Spec{Name: "x"}, []tool.Option{tool.WithSchema(func(s *jsonschema.Schema) {
			s.Type = "array"
		})}, "must stay object"},
		{"two options", tool.Spec{Name: "x"}, []tool.Option{tunedSchema, tunedSchema}, "more than one WithSchema"},
		{"explicit schema too", tool.Spec{Name: "x", InputSchema: tool.EmptyObjectSchema()}, []tool.Option{tunedSchema}, "Spec.InputSchema is set too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := tool.New(tc.spec, runTuned, tc.opts...)
			if tc.want == "" {
				if err != nil {
					t.Errorf("NotNull on a plain string property: %v, want no change and no error", err)
				}
				return
			}
			if err == nil {
				// A mistake inside the edit shows once the schema is
				// built: on first use, in the schema and in every call.
				spec := tl.Spec()
				res := tl.Run(t.Context(), json.RawMessage(`{}`), tool.NewEnv(t.TempDir()))
				if !strings.Contains(string(spec.InputSchema), `"not":{}`) || !strings.Contains(string(spec.InputSchema), strings.ReplaceAll(tc.want, `"`, `\"`)) {
					t.Errorf("schema = %s, want one that refuses every input and names %q", spec.InputSchema, tc.want)
				}
				if !res.IsError || !strings.Contains(res.PlainText(), tc.want) || !strings.Contains(res.PlainText(), "tool x") {
					t.Errorf("call = %q, want an error naming the tool and %q", res.PlainText(), tc.want)
				}
				return
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"x"`) {
				t.Errorf("err = %v, want one naming the tool and %q", err, tc.want)
			}
		})
	}
}

// New leaves the inference of a schema to the tool's first use, so that a
// process that builds every tool to call one pays for one schema; the
// schema is then built once, however many copies are asked for.
func TestSchemaIsInferredOnFirstUse(t *testing.T) {
	t.Parallel()
	var edits atomic.Int32
	opt := tool.WithSchema(func(s *jsonschema.Schema) { edits.Add(1); tool.SetDefault(s, "limit", 3) })
	tl, err := tool.New(tool.Spec{Name: "lazy"}, runTuned, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := edits.Load(); n != 0 {
		t.Fatalf("New built the schema (%d edits ran); want it built on first use", n)
	}
	a, b := tl.Spec(), tl.Spec()
	if n := edits.Load(); n != 1 || !bytes.Equal(a.InputSchema, b.InputSchema) || !strings.Contains(string(a.InputSchema), `"default":3`) {
		t.Errorf("after two Specs: %d edits, schemas %s and %s; want one edit and the default", n, a.InputSchema, b.InputSchema)
	}
	if _, err := tool.New(tool.Spec{Name: "scalar"}, func(context.Context, string, *tool.Env) tool.Result { return tool.Text("") }); err == nil || !strings.Contains(err.Error(), "must be a struct") {
		t.Errorf("New with a string input: %v, want the struct rule", err)
	}
}
