package conductor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
)

// Switching to plan mode (Shift-Tab in the terminal) refuses the next
// write; switching back lets the same write be asked about again.
func TestSetModeAppliesToTheNextCall(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("write", `{"path":"x.txt","content":"x"}`), fakemodel.Say("planned"),
		fakemodel.Call("write", `{"path":"x.txt","content":"x"}`), fakemodel.Say("written"))
	asked := 0
	c := open(t, dir, srv, conductor.Options{Ask: func(context.Context, conductor.Question) conductor.Answer {
		asked++
		return conductor.Answer{Allow: true}
	}})
	if err := c.SetMode(conductor.Plan); err != nil {
		t.Fatal(err)
	}
	if c.Mode() != conductor.Plan || !c.Planning() {
		t.Fatalf("mode %s planning %v after SetMode(plan)", c.Mode(), c.Planning())
	}
	if _, err := c.Run(context.Background(), "write x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil || asked != 0 {
		t.Fatalf("plan mode let the write run (asked %d times)", asked)
	}
	if err := c.SetMode(conductor.Default); err != nil || c.Planning() {
		t.Fatal("leaving plan mode", err)
	}
	if _, err := c.Run(context.Background(), "write x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err != nil || asked != 1 {
		t.Fatalf("in default mode the write was not asked about and run once: asked %d, %v", asked, err)
	}
	if err := c.SetMode("yolo"); err == nil {
		t.Error("an unknown mode was taken")
	}
}

// A rule allowed "always" at a question covers the later calls it
// matches, and not others.
func TestAllowRuleCoversLaterCalls(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch a"}`, "bash", `{"command":"touch b"}`), fakemodel.Say("done"))
	var asked []string
	c := open(t, dir, srv, conductor.Options{Ask: func(_ context.Context, q conductor.Question) conductor.Answer {
		asked = append(asked, string(q.Input))
		return conductor.Answer{Reason: "not b"}
	}})
	if err := c.AllowRule("Bash(touch a)"); err != nil {
		t.Fatal(err)
	}
	if err := c.AllowRule("Bash("); err == nil {
		t.Error("a broken rule was taken")
	}
	if _, err := c.Run(context.Background(), "touch"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Error("the allowed call did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Error("the refused call ran")
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "touch b") {
		t.Errorf("asked about %v, want only touch b", asked)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "not b") {
		t.Error("the user's reason did not reach the model")
	}
	if got := c.AllowedRules(); len(got) != 1 || got[0] != "Bash(touch a)" {
		t.Errorf("rules %v", got)
	}
}

// In default mode the plan of exit_plan_mode is put to the user: a
// refusal's reason reaches the model and plan mode goes on; an approval
// ends plan mode, so the write that follows is asked about and runs.
func TestPlanApprovalAsksTheUser(t *testing.T) {
	dir := t.TempDir()
	plan := `{"plan":"1. write x.txt"}`
	srv := fakemodel.Start(t,
		fakemodel.Call("exit_plan_mode", plan), fakemodel.Say("revising"),
		fakemodel.Call("exit_plan_mode", plan), fakemodel.Call("write", `{"path":"x.txt","content":"x"}`), fakemodel.Say("done"))
	var questions []conductor.Question
	c := open(t, dir, srv, conductor.Options{Mode: conductor.Plan, Ask: func(_ context.Context, q conductor.Question) conductor.Answer {
		questions = append(questions, q)
		if q.Tool == conductor.PlanQuestion && len(questions) == 1 {
			return conductor.Answer{Reason: "also update the README"}
		}
		return conductor.Answer{Allow: true}
	}})
	if _, err := c.Run(context.Background(), "plan it"); err != nil {
		t.Fatal(err)
	}
	if !c.Planning() || c.Mode() != conductor.Plan {
		t.Fatal("a refused plan ended plan mode")
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "also update the README") {
		t.Error("the reason of the refusal did not reach the model")
	}
	if _, err := c.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if c.Planning() || c.Mode() != conductor.Default {
		t.Errorf("an approved plan left mode %s planning %v", c.Mode(), c.Planning())
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err != nil {
		t.Error("the approved plan's write did not run")
	}
	if len(questions) != 3 || questions[0].Tool != conductor.PlanQuestion || questions[2].Tool != "write" {
		t.Fatalf("questions %+v", questions)
	}
	var in struct{ Plan string }
	json.Unmarshal(questions[0].Input, &in)
	if in.Plan != "1. write x.txt" {
		t.Errorf("the question did not carry the plan: %s", questions[0].Input)
	}
}
