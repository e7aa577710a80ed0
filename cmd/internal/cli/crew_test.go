package cli_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/internal/testtree"
)

// indusr crew run PLAN.toml: two teammates of the workspace's roster
// (one written for Claude Code) work through a scripted plan, each in a
// worktree of its own; the report names two branches whose commits hold
// their files, and the user's tree is untouched. A plan naming someone
// off the roster is a usage error.
func TestCrewRunCommand(t *testing.T) {
	t.Parallel()
	testpeer.Command(t, "git", "install git")
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"README":                    "project\n",
		".indus/agents/writer.toml": "description = \"Writes code.\"\ntool_collection = \"read, write\"\n",
		".claude/agents/tester.md":  "---\nname: tester\ndescription: Writes tests.\ntools: Read, Write\n---\nYou write tests.\n",
		"plan.toml": "[[task]]\nid = \"impl\"\nprompt = \"Write the code.\"\nassign = \"writer\"\n" +
			"[[task]]\nid = \"test\"\nprompt = \"Write the test.\"\ndeps = [\"impl\"]\nassign = \"tester\"\n",
		"bad.toml": "teammates = [\"ghost\"]\n[[task]]\nid = \"a\"\nprompt = \"x\"\n",
	})
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "start")
	srv := fakemodel.Start(t)
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		body := string(r.Body)
		file := "impl.txt"
		if strings.Contains(body, "Write the test.") {
			file = "impl_test.txt"
		}
		var v struct{ Messages []json.RawMessage }
		json.Unmarshal(r.Body, &v)
		if len(v.Messages) == 1 {
			return fakemodel.Call("write", `{"path":"`+file+`","content":"by the crew\n"}`)
		}
		return fakemodel.Say("wrote " + file)
	})
	out, err := indusrP(t, dir, srv, "crew", "run", filepath.Join(dir, "plan.toml"), "--json").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep struct {
		Completed []string
		Branches  map[string]string
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Join(rep.Completed, ",") != "impl,test" || len(rep.Branches) != 2 {
		t.Fatalf("report %s", out)
	}
	if got := git("show", rep.Branches["writer"]+":impl.txt"); got != "by the crew\n" {
		t.Errorf("writer's branch holds %q", got)
	}
	if got := git("show", rep.Branches["tester"]+":impl_test.txt"); got != "by the crew\n" {
		t.Errorf("tester's branch holds %q", got)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("the user's tree changed: %s", st)
	}
	cmd := indusrP(t, dir, srv, "crew", "run", filepath.Join(dir, "bad.toml"))
	msg, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(msg), `teammate "ghost" is not a profile of the roster`) {
		t.Errorf("a plan naming someone off the roster: %v\n%s", err, msg)
	}
}
