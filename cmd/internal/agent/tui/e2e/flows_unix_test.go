//go:build unix

package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// A multi-turn edit: the edit asked at the prompt and allowed shows its
// diff and changes the file; a second one refused with a reason leaves the
// file as it was and the model reads the reason.
func TestEditApprovedThenOneDenied(t *testing.T) {
	s := open(t, 80, 24, map[string]string{"add.sh": "echo $((1+1))\n"},
		fakemodel.Call("read", `{"path":"add.sh"}`),
		fakemodel.Call("edit", `{"path":"add.sh","old_string":"1+1","new_string":"2+2"}`),
		fakemodel.Say("add.sh now prints 4."),
		fakemodel.Call("edit", `{"path":"add.sh","old_string":"2+2","new_string":"3+3"}`),
		fakemodel.Say("Understood, I left it."))
	s.ask("make add.sh print 4")
	s.WaitText("Permission: edit", wait)
	s.Keys("1")
	screen := s.WaitText("now prints 4", wait)
	if got := s.file("add.sh"); got != "echo $((2+2))\n" {
		t.Errorf("after the allowed edit add.sh holds %q", got)
	}
	if !strings.Contains(screen, "+echo $((2+2))") || !strings.Contains(screen, "-echo $((1+1))") {
		t.Errorf("the edit's diff is not shown:\n%s", screen)
	}

	s.ask("now make it 6")
	s.WaitText("Permission: edit", wait)
	s.Keys("3")
	s.WaitText("Why", wait)
	s.Type("keep it at 4")
	s.Keys("Enter")
	s.WaitText("I left it", wait)
	if got := s.file("add.sh"); got != "echo $((2+2))\n" {
		t.Errorf("after the refused edit add.sh holds %q", got)
	}
	reqs := s.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "keep it at 4") {
		t.Errorf("the model was not told the reason; its last request:\n%s", last)
	}
}

// Esc during a long bash command ends the turn and the command's process.
func TestEscInterruptsALongBash(t *testing.T) {
	s := open(t, 80, 24, nil,
		fakemodel.Call("bash", `{"command":"echo $$ > sleeper.pid; echo sleeping; exec sleep 600"}`),
		fakemodel.Say("never reached"))
	s.ask("wait ten minutes")
	s.WaitText("Permission: bash", wait)
	s.Keys("1")
	pidFile := filepath.Join(s.dir, "sleeper.pid")
	var pid int
	s.WaitFor("the command to start", wait, func(string) bool {
		b, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	s.WaitText("sleeping", wait)
	s.Keys("Escape")
	s.WaitFor("the sleep to be gone", wait, func(string) bool {
		return syscall.Kill(pid, 0) == syscall.ESRCH
	})
	screen := s.WaitText("> ", wait)
	if strings.Contains(screen, "never reached") {
		t.Errorf("the turn went on after Esc:\n%s", screen)
	}
}

// /rewind undoes the last prompt's edit after showing the diff; with two
// prompts it first asks which, showing what each would undo.
func TestRewindRestoresTheFiles(t *testing.T) {
	s := open(t, 80, 24, map[string]string{"notes.md": "# Notes\nkeep this\n"},
		fakemodel.Call("read", `{"path":"notes.md"}`),
		fakemodel.Call("edit", `{"path":"notes.md","old_string":"keep this","new_string":"lost"}`),
		fakemodel.Say("Done."),
		fakemodel.Call("edit", `{"path":"notes.md","old_string":"lost","new_string":"gone"}`),
		fakemodel.Say("Done again."))
	s.ask("change the notes")
	s.WaitText("Permission: edit", wait)
	s.Keys("1")
	s.WaitText("Done.", wait)
	if s.file("notes.md") != "# Notes\nlost\n" {
		t.Fatalf("the edit did not happen: %q", s.file("notes.md"))
	}

	// One prompt: straight to its diff.
	s.ask("/rewind")
	s.WaitText("-lost", wait)
	s.Keys("n")
	s.WaitText("nothing changed", wait)

	s.ask("change them again")
	s.WaitText("Permission: edit", wait)
	s.Keys("1")
	s.WaitText("Done again.", wait)
	s.ask("/rewind")
	s.WaitText("Rewind the files to before", wait)
	s.Keys("Down") // the first prompt: undoing it undoes both
	s.WaitFor("the first prompt's diff", wait, func(sc string) bool {
		return strings.Contains(sc, "› change the notes") && strings.Contains(sc, "+keep this")
	})
	s.Keys("Enter")
	s.WaitText("and undo the 1 prompt", wait)
	s.Keys("y")
	s.WaitFor("notes.md restored", wait, func(string) bool { return s.file("notes.md") == "# Notes\nkeep this\n" })
}

// /compact replaces the conversation with the model's summary of it.
func TestCompact(t *testing.T) {
	s := open(t, 80, 24, nil,
		fakemodel.Say("The answer is 42."),
		fakemodel.Say("Summary: the user asked a question; the answer was 42."),
		fakemodel.Say("Still 42."))
	s.ask("what is the answer?")
	s.WaitText("The answer is 42.", wait)
	s.ask("/compact")
	// The notice comes, and the "Compacting…" line goes once it is over.
	s.WaitFor("the compaction's end", wait, func(sc string) bool {
		return strings.Contains(sc, "compacted") && !strings.Contains(sc, "Compacting…")
	})
	s.ask("and now?")
	s.WaitText("Still 42.", wait)
	reqs := s.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "Summary: the user asked") || strings.Contains(last, "what is the answer?") {
		t.Errorf("the prompt after /compact does not carry the summary in place of the conversation:\n%s", last)
	}
}

// An addon's [[command]] runs by its name and shows its output.
func TestAddonCommand(t *testing.T) {
	s := open(t, 80, 24, map[string]string{
		".indus/addons/greet/manifest.toml": "id = \"greet\"\nversion = \"1.0.0\"\n\n[[command]]\nname = \"greet\"\nsummary = \"say hello\"\nexec = \"echo hello from the addon: $1\"\n",
	})
	s.Type("/gre")
	s.WaitText("say hello", wait) // the completion menu offers it
	s.Keys("Tab")
	s.WaitFor("the command completed", wait, func(sc string) bool {
		return strings.Contains(sc, "> /greet") && !strings.Contains(sc, "say hello")
	})
	s.Type("world")
	s.Keys("Enter")
	s.WaitText("hello from the addon: world", wait)
}

// Shift-Tab walks the modes; the status line says which.
func TestShiftTabToPlanMode(t *testing.T) {
	s := open(t, 80, 24, nil)
	status := func(sc string) string {
		lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
		return lines[len(lines)-1]
	}
	if st := status(s.Screen()); !strings.HasPrefix(strings.TrimSpace(st), "default") {
		t.Errorf("status line at start: %q", st)
	}
	s.Keys("BTab")
	s.WaitFor("acceptEdits", wait, func(sc string) bool { return strings.Contains(status(sc), "acceptEdits") })
	s.Keys("BTab")
	s.WaitFor("plan mode", wait, func(sc string) bool { return strings.Contains(status(sc), "plan") })
}

// At 60 columns every line fits, before and after a resize, with a long
// answer and the completion menu on screen.
func TestResizeTo60Columns(t *testing.T) {
	long := "Here is a long answer: " + strings.Repeat("the quick brown fox jumps over the lazy dog ", 6) +
		"\n\n```go\nfunc main() { fmt.Println(\"a line of code that is wider than sixty columns on its own\") }\n```\n\n| column one | column two | column three |\n|---|---|---|\n| a | b | c |\n"
	s := open(t, 80, 24, map[string]string{"src/a/rather/long/path/to/a/file/with/a/long/name.go": "package x\n"},
		fakemodel.Say(long), fakemodel.Say(long))
	s.ask("tell me something long")
	s.WaitText("lazy dog", wait)
	s.Resize(60, 24)
	check := func(when string) {
		t.Helper()
		s.WaitFor("the screen at 60 columns "+when, wait, func(string) bool {
			for _, l := range s.Lines() {
				if lipgloss.Width(l) > 60 {
					return false
				}
			}
			return true
		})
	}
	check("after the resize")
	s.ask("again")
	s.WaitFor("the second answer", wait, func(sc string) bool { return len(s.srv.Requests()) >= 2 && !strings.Contains(sc, "running") })
	check("after a new answer")
	s.Type("@long")
	s.WaitText("name.go", wait)
	check("with the file menu open")
}

// A large paste shows as a marker and reaches the model whole; Up brings
// the sent prompt back from the workspace's history.
func TestPasteAndHistory(t *testing.T) {
	s := open(t, 80, 24, nil, fakemodel.Say("Seen."), fakemodel.Say("Seen again."))
	var log strings.Builder
	for i := range 30 {
		log.WriteString("error line " + strconv.Itoa(i) + "\n")
	}
	s.Type("explain ")
	s.Paste(log.String())
	s.WaitText("[paste #1: 31 lines]", wait)
	s.Keys("Enter")
	s.WaitText("Seen.", wait)
	if body := string(s.srv.Requests()[0].Body); !strings.Contains(body, "error line 29") || strings.Contains(body, "[paste #1") {
		t.Errorf("the model did not get the pasted text:\n%s", body)
	}
	s.Keys("Up")
	s.WaitText("> explain error line 0", wait)
}

// Ctrl-C twice quits with status 0 and leaves the terminal as it was:
// the alternate screen gone, nothing of the UI on the shell's screen.
func TestCtrlCTwiceQuitsCleanly(t *testing.T) {
	s := open(t, 80, 24, nil)
	s.Type("half a thought")
	s.Keys("C-c") // clears the input and arms the quit
	s.WaitFor("the input cleared", wait, func(sc string) bool {
		return !strings.Contains(sc, "half a thought") && strings.Contains(sc, "again to quit")
	})
	s.Keys("C-c")
	s.WaitFor("the exit", wait, func(string) bool { dead, _ := s.Exited(); return dead })
	if _, status := s.Exited(); status != 0 {
		t.Errorf("exit status %d", status)
	}
	if sc := s.Screen(); strings.Contains(sc, "claude-sonnet") || strings.Contains(sc, "> ") {
		t.Errorf("the UI is left on the terminal:\n%s", sc)
	}
}

// NO_COLOR: the screen has attributes at most, no colour.
func TestNoColorEndToEnd(t *testing.T) {
	s := openEnv(t, 80, 24, []string{"NO_COLOR=1"}, map[string]string{"a.txt": "x\n"},
		fakemodel.Say("# Title\n\nSome `code` and **bold**."))
	s.ask("hello")
	s.WaitText("Title", wait)
	screen := s.ScreenANSI()
	for _, m := range sgrRE.FindAllStringSubmatch(screen, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				t.Errorf("a colour (%q) under NO_COLOR:\n%q", m[0], screen)
			}
		}
	}
}

// sgrRE matches a select-graphic-rendition sequence and its parameters.
var sgrRE = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

var screenshot = flag.String("screenshot", "", "write the screen of TestScreenshotScreen, with its colours, to this file (scripts/screenshot.sh renders it)")

// The README's screenshot: a permission question with its diff, the
// status line under it. The test checks the screen a newcomer sees;
// with -screenshot it also keeps it.
func TestScreenshotScreen(t *testing.T) {
	s := open(t, 80, 24, map[string]string{"greet.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"},
		fakemodel.Call("read", `{"path":"greet.go"}`),
		fakemodel.Reply{Blocks: []fakemodel.Block{
			fakemodel.Text("The greeting is printed in `main`. I'll make it friendlier:"),
			fakemodel.ToolUse("edit", `{"path":"greet.go","old_string":"fmt.Println(\"hello\")","new_string":"fmt.Println(\"Hello, and welcome!\")"}`),
		}},
		fakemodel.Say("Done: `greet.go` now prints **Hello, and welcome!**"))
	s.ask("make the greeting in greet.go friendlier")
	screen := s.WaitText("Permission: edit", wait)
	for _, want := range []string{`-fmt.Println("hello")`, `+fmt.Println("Hello, and welcome!")`, "1. Yes", "default ·"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question lacks %q:\n%s", want, screen)
		}
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, []byte(s.ScreenANSI()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Keys("1")
	s.WaitText("now prints", wait)
}
