package conductor_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/internal/testtree"
)

// A crew of two teammates on a scripted plan runs each task as a
// subagent conversation in the teammate's worktree: the writer's file
// and then (after it, by the dependency) the tester's are commits on two
// branches, and the report says both tasks completed.
func TestCrewOnConductor(t *testing.T) {
	testpeer.Command(t, "git", "install git")
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"README":                       "project\n",
		".indus/agents/writer.toml":    "description = \"Writes code.\"\ntool_collection = \"read, write\"\n",
		".indus/agents/tester.toml":    "description = \"Writes tests.\"\ntool_collection = \"read, write, ls\"\n",
		".indus/agents/bystander.toml": "description = \"Not on this crew.\"\n",
	})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	srv := fakemodel.Start(t)
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		file := "impl.txt"
		if strings.Contains(w.body, "Write the test") {
			file = "impl_test.txt"
		}
		if w.msgs == 1 {
			return fakemodel.Call("write", `{"path":"`+file+`","content":"made by the crew\n"}`)
		}
		return fakemodel.Say("wrote " + file)
	})
	c := open(t, dir, srv, conductor.Options{Mode: conductor.AcceptEdits})
	plan, err := agents.ParsePlan("plan.toml", []byte("[[task]]\nid = \"impl\"\nprompt = \"Write the code.\"\nassign = \"writer\"\n"+
		"[[task]]\nid = \"test\"\nprompt = \"Write the test.\"\ndeps = [\"impl\"]\nassign = \"tester\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	team, err := plan.Team(c.Roster())
	if err != nil {
		t.Fatal(err)
	}
	crew := &agents.Crew{Profiles: team, Repo: dir, Dir: filepath.Join(dir, ".indusvx", "crews"), Runner: c.Teammates()}
	rep, err := crew.Run(context.Background(), plan.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Completed, ",") != "impl,test" || len(rep.Failed) != 0 || rep.Rounds != 2 || len(rep.Branches) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for who, file := range map[string]string{"writer": "impl.txt", "tester": "impl_test.txt"} {
		out, err := exec.Command("git", "-C", dir, "show", rep.Branches[who]+":"+file).CombinedOutput()
		if err != nil || string(out) != "made by the crew\n" {
			t.Errorf("branch %s holds %s as %q (%v)", rep.Branches[who], file, out, err)
		}
	}
	if rep.Tasks[0].Commit == "" || rep.Tasks[0].Output != "wrote impl.txt" {
		t.Errorf("task outcome %+v", rep.Tasks[0])
	}
	if out, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("the user's own tree changed: %s", out)
	}
}
