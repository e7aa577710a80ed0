package agents

import (
	"strings"
	"testing"
)

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan("plan.toml", []byte("max_rounds = 3\n[[task]]\nid = \"a\"\nprompt = \"do a\"\nassign = \"writer\"\n"+
		"[[task]]\nid = \"b\"\nprompt = \"do b\"\ndeps = [\"a\"]\nassign = \"tester\"\n"))
	if err != nil || p.MaxRounds != 3 || len(p.Tasks) != 2 || p.Tasks[1].Deps[0] != "a" {
		t.Fatalf("%+v %v", p, err)
	}
	roster := []Profile{{Name: "tester"}, {Name: "writer"}, {Name: "idle"}}
	team, err := p.Team(roster)
	if err != nil || len(team) != 2 || team[0].Name != "writer" || team[1].Name != "tester" {
		t.Errorf("team %+v %v", team, err)
	}
	if _, err := (Plan{Teammates: []string{"ghost"}}).Team(roster); err == nil || !strings.Contains(err.Error(), "tester, writer, idle") {
		t.Errorf("an unknown teammate: %v", err)
	}
	for name, text := range map[string]string{
		"no tasks":  "teammates = [\"a\"]\n",
		"typo":      "[[task]]\nid = \"a\"\nprompt = \"x\"\nasign = \"b\"\n",
		"no prompt": "[[task]]\nid = \"a\"\n",
		"bad toml":  "[[task]\n",
	} {
		if _, err := ParsePlan("plan.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), "plan.toml") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
