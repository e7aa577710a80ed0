package intent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/indusagi/induscode/intent"
)

// Any tool call a model can make parses into an intent or fails with one
// of the two typed errors; it never panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []struct{ name, args string }{
		{"add", `{"n":1}`}, {"add", `{"n":"1"}`}, {"add", `{"n":1e400}`}, {"emit", `{"events":["a","!b"]}`},
		{"emit", `{"events":null}`}, {"reset", ``}, {"reset", `null`}, {"nope", `{}`}, {"add", `[`},
		{"fail_now", `{"msg":"\u0000"}`}, {"add", `{"n":1,"n":2}`},
	} {
		f.Add(seed.name, seed.args)
	}
	set := tallySet(f)
	f.Fuzz(func(t *testing.T, name, args string) {
		in, err := set.Parse(name, json.RawMessage(args))
		var ue *intent.UnknownError
		var ae *intent.ArgumentError
		switch {
		case err == nil:
			if got, ok := set.NameOf(in); !ok || got != name {
				t.Fatalf("Parse(%q) returned a %T, named %q", name, in, got)
			}
		case errors.As(err, &ue), errors.As(err, &ae):
		default:
			t.Fatalf("Parse(%q, %q) failed with an untyped error: %v", name, args, err)
		}
	})
}

// Child tools take any input without panicking; what they refuse they
// refuse with an IsError result.
func FuzzChildToolInput(f *testing.F) {
	for _, seed := range []string{`{"child":"a","n":1}`, `{"child":1,"n":1}`, `{"child":"","n":1}`, `{}`, `null`, `[]`, `"a"`, ``, `{"child":"a","child":"b","n":1}`} {
		f.Add(seed)
	}
	var warms int
	p := newFamily(&warms)
	tools, err := intent.ChildTools(tallySet(f), p, "child", "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input string) {
		before := p.State().Sum
		res := tools[0].Run(context.Background(), json.RawMessage(input), nil)
		if res.IsError && p.State().Sum != before {
			t.Fatalf("a refused call changed the parent: %s", res.PlainText())
		}
		if res.IsError && res.PlainText() == "" {
			t.Fatal("a refusal without a message")
		}
	})
}
