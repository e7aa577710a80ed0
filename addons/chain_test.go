package addons

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/indusagi/induscode/tool"
)

type stageSpec struct {
	matches bool   // Any, or another tool's name
	enter   Action // Continue, Rewrite, Block, or 3: no enter stage
	exit    Action // Continue, Rewrite, or 3: no exit stage
}

// TestChainOrderProperty: enter stages of matching interceptors run in
// load order until the first block; without a block the tool runs exactly
// once with the last rewrite's arguments and the exit stages run in
// reverse, each seeing the result the later one left; with a block the
// tool and the exit stages never run.
func TestChainOrderProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		specs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) stageSpec {
			return stageSpec{
				matches: rapid.Bool().Draw(t, "matches"),
				enter:   rapid.SampledFrom([]Action{Continue, Rewrite, Block, 3}).Draw(t, "enter"),
				exit:    rapid.SampledFrom([]Action{Continue, Rewrite, 3}).Draw(t, "exit"),
			}
		}), 0, 10).Draw(t, "stages")
		var calls []string
		stages := make([]Interceptor, len(specs))
		for i, s := range specs {
			st := Interceptor{Addon: ID(fmt.Sprint(i)), Match: Match{Tool: "other"}}
			if s.matches {
				st.Match = AnyTool()
				if i%2 == 0 {
					st.Match = Match{Tool: "t"}
				}
			}
			if s.enter != 3 {
				st.Enter = func(_ context.Context, ec EnterContext) EnterOutcome {
					calls = append(calls, fmt.Sprintf("enter%d(%s)", i, ec.Args))
					switch s.enter {
					case Rewrite:
						return RewriteArgs(json.RawMessage(fmt.Sprintf(`[%d]`, i)))
					case Block:
						return Refuse(fmt.Sprint("no", i))
					}
					return Proceed()
				}
			}
			if s.exit != 3 {
				st.Exit = func(_ context.Context, xc ExitContext) ExitOutcome {
					calls = append(calls, fmt.Sprintf("exit%d(%s)", i, xc.Result.PlainText()))
					if s.exit == Rewrite {
						return RewriteResult(tool.Text(xc.Result.PlainText() + fmt.Sprint(i)))
					}
					return Keep()
				}
			}
			stages[i] = st
		}
		runs := 0
		res := NewChain(stages, nil).Run(context.Background(), EnterContext{Tool: "t", Args: json.RawMessage(`{}`)},
			func(_ context.Context, args json.RawMessage) tool.Result {
				runs++
				calls = append(calls, fmt.Sprintf("run(%s)", args))
				return tool.Text("r")
			})

		var want []string
		args := "{}"
		var blocked *Blocked
		var matched []int
		for i, s := range specs {
			if !s.matches {
				continue
			}
			matched = append(matched, i)
			if s.enter == 3 {
				continue
			}
			want = append(want, fmt.Sprintf("enter%d(%s)", i, args))
			if s.enter == Rewrite {
				args = fmt.Sprintf("[%d]", i)
			}
			if s.enter == Block {
				blocked = &Blocked{Addon: ID(fmt.Sprint(i)), Reason: fmt.Sprint("no", i)}
				break
			}
		}
		result := "r"
		if blocked == nil {
			want = append(want, fmt.Sprintf("run(%s)", args))
			for j := len(matched) - 1; j >= 0; j-- {
				i := matched[j]
				if specs[i].exit == 3 {
					continue
				}
				want = append(want, fmt.Sprintf("exit%d(%s)", i, result))
				if specs[i].exit == Rewrite {
					result += fmt.Sprint(i)
				}
			}
		}
		if strings.Join(calls, " ") != strings.Join(want, " ") {
			t.Fatalf("calls\n %v\nwant\n %v", calls, want)
		}
		if blocked != nil {
			if runs != 0 || res.Blocked == nil || *res.Blocked != *blocked {
				t.Fatalf("blocked %+v after %d runs, want %+v and no run", res.Blocked, runs, blocked)
			}
			return
		}
		if runs != 1 || res.Blocked != nil || res.Result.PlainText() != result {
			t.Fatalf("runs %d, result %q, blocked %+v; want one run and %q", runs, res.Result.PlainText(), res.Blocked, result)
		}
	})
}

func TestChainStagePanicsAreFaults(t *testing.T) {
	var log faultLog
	c := NewChain([]Interceptor{
		{Addon: "p", Enter: func(context.Context, EnterContext) EnterOutcome { panic("enter bug") },
			Exit: func(context.Context, ExitContext) ExitOutcome { panic("exit bug") }},
		{Addon: "ok", Exit: func(_ context.Context, xc ExitContext) ExitOutcome {
			return RewriteResult(tool.Text(xc.Result.PlainText() + "!"))
		}},
	}, log.add)
	res := c.Run(context.Background(), EnterContext{Tool: "x"}, func(context.Context, json.RawMessage) tool.Result { return tool.Text("done") })
	if res.Blocked != nil || res.Result.PlainText() != "done!" {
		t.Errorf("result %+v, want done! despite the panicking stages", res)
	}
	if fs := log.all(); len(fs) != 2 || fs[0].Addon != "p" || fs[1].Kind != HandlerFault {
		t.Errorf("faults %v, want two handler faults of p", fs)
	}
	if c.Matches("anything") != true || NewChain(nil, nil).Matches("x") {
		t.Error("Matches disagrees with the stages")
	}
}
