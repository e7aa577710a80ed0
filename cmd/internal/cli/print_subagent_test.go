package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testtree"
)

// indusr -p with no INDUSR_DELEGATE delegates to a subagent written for
// Claude Code (.claude/agents/reviewer.md, unchanged): the roster lists
// it, it runs in process with only its tools, its answer comes back, and
// stream-json marks its messages with the task call's id and counts it
// in the result's subagent_stats.
func TestPrintDelegatesToClaudeAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"add.sh": "echo $((1+1))\n",
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Expert code reviewer. Use after writing code.\n" +
			"tools: Read, Grep, Glob\nmodel: inherit\n---\n\nYou are a senior reviewer. List problems by priority.\n",
	})
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{{Kind: "tool_use", ID: "toolu_review", Name: "task", Input: `{"objective":"Review add.sh","agent":"reviewer"}`}}},
		fakemodel.Call("read", `{"path":"add.sh"}`),
		fakemodel.Say("REVIEW: add.sh is fine."),
		fakemodel.Say("The reviewer found nothing to fix."))
	cmd := indusrP(t, dir, srv, "-p", "review add.sh", "--output-format", "stream-json", "--verbose")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "INDUSR_DELEGATE=") })
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var marked, main int
	var result map[string]any
	sessions := map[any]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		sessions[m["session_id"]] = true
		if m["type"] == "system" && m["subtype"] == "init" {
			main += 100 // one init, the main agent's
		}
		switch m["type"] {
		case "assistant", "user":
			if _, ok := m["parent_tool_use_id"]; !ok {
				t.Errorf("no parent_tool_use_id: %s", line)
			}
			switch m["parent_tool_use_id"] {
			case "toolu_review":
				marked++
			case nil:
				main++
			}
		case "result":
			result = m
		}
	}
	if len(sessions) != 1 {
		t.Errorf("lines carry %d session ids, want the main agent's only", len(sessions))
	}
	if marked != 3 || main != 103 {
		t.Errorf("%d messages marked with the task call, %d of the main agent; want 3 and 3 and one init:\n%s", marked, main, out)
	}
	stats, _ := result["subagent_stats"].(map[string]any)
	if result["result"] != "The reviewer found nothing to fix." || stats["runs"] != float64(1) || stats["num_turns"] != float64(2) {
		t.Errorf("result %v", result)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), "reviewer (Expert code reviewer. Use after writing code.") {
		t.Error("the task card's roster does not list the reviewer")
	}
	var child struct{ Tools []struct{ Name string } }
	json.Unmarshal(reqs[1].Body, &child)
	var names []string
	for _, tl := range child.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"read", "grep", "find"}) || !strings.Contains(string(reqs[1].Body), "senior reviewer") {
		t.Errorf("the reviewer ran with tools %v (prompt in request: %v)", names, strings.Contains(string(reqs[1].Body), "senior reviewer"))
	}
	if !strings.Contains(string(reqs[3].Body), "REVIEW: add.sh is fine.") {
		t.Error("the reviewer's answer did not reach the parent")
	}
	if _, err := os.Stat(filepath.Join(dir, ".indusvx", "transcripts")); err != nil {
		t.Error(err)
	}
}
