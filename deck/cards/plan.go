package cards

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// MaxSlug is the longest plan slug, in characters: long enough to tell
// plans apart in a listing, short enough for any file system.
const MaxSlug = 48

// enterGuidance is what the model reads after asking for plan mode.
const enterGuidance = "Plan mode requested. Until the plan is approved, only explore: read files, search, list " +
	"directories and fetch documentation. Do not edit files, run commands that change anything, or start " +
	"processes. When you know what to do, call exit_plan_mode with the complete plan for the user to approve."

type planInput struct {
	Plan string `json:"plan" jsonschema:"The complete plan in Markdown: the steps, the files each touches, and how the result will be checked."`
}

// EnterPlanMode returns the enter_plan_mode card. It changes nothing: its
// result carries a marker the host watches for.
func EnterPlanMode() tool.Tool { return enterPlanOnce() }

var enterPlanOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "enter_plan_mode",
		Label: "Enter plan mode",
		Description: "Ask to switch to plan mode before a change that needs thought: you explore read-only and then " +
			"present a plan with exit_plan_mode for the user to approve. Takes no input.",
		InputSchema: tool.EmptyObjectSchema(),
		ReadOnly:    true,
	}, func(context.Context, struct{}, *tool.Env) tool.Result {
		res := tool.JSON(map[string]any{"enterPlanMode": true, "applied": false})
		res.Blocks = append(res.Blocks, tool.TextBlock(enterGuidance))
		return res
	}))
})

// ExitPlanMode returns the exit_plan_mode card: it hands the plan to the
// host, which asks the user to approve it.
func ExitPlanMode() tool.Tool { return exitPlanOnce() }

var exitPlanOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "exit_plan_mode",
		Label: "Exit plan mode",
		Description: "Present your plan for approval and ask to leave plan mode. Give the whole plan in plan; the user " +
			"approves or rejects it, and only after approval do you start changing things.",
		ReadOnly: true,
	}, func(_ context.Context, in planInput, _ *tool.Env) tool.Result {
		if strings.TrimSpace(in.Plan) == "" {
			return tool.Errorf("exit_plan_mode needs plan: the complete plan the user should approve")
		}
		res := tool.JSON(map[string]any{"exitPlan": true, "plan": in.Plan})
		res.Blocks = append(res.Blocks, tool.TextBlock("Plan submitted for approval. Wait for the user's answer before changing anything."))
		return res
	}))
})

// PlanSlug names a plan after its first non-empty line: letters and
// digits lower-cased, every other run of characters one dash, at most
// MaxSlug characters; "plan" when nothing is left.
func PlanSlug(plan string) string {
	var first string
	for line := range strings.SplitSeq(plan, "\n") {
		if strings.TrimSpace(line) != "" {
			first = line
			break
		}
	}
	var sb strings.Builder
	n, dash := 0, false
	for _, r := range first {
		if n == MaxSlug {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && sb.Len() > 0 {
				if n+1 == MaxSlug {
					break
				}
				sb.WriteByte('-')
				n++
			}
			sb.WriteRune(unicode.ToLower(r))
			n++
			dash = false
			continue
		}
		dash = true
	}
	if sb.Len() == 0 {
		return "plan"
	}
	return sb.String()
}

// PlanFilePath is the path of a plan file named name (".md" added) in the
// plans folder of the workspace at dir.
func PlanFilePath(dir, name string) string {
	return filepath.Join(workspace.At(dir).Plans(), name+".md")
}

// WritePlan saves plan in the plans folder of the workspace at dir as
// <base-36 epoch milliseconds>-<slug>.md and returns the path. A name
// already taken moves the stamp on by a millisecond, so repeats never
// overwrite each other.
func WritePlan(dir, plan string) (string, error) {
	folder := workspace.At(dir).Plans()
	if err := workspace.MkdirAll(folder, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", folder, err)
	}
	slug := PlanSlug(plan)
	for ms := time.Now().UnixMilli(); ; ms++ {
		path := PlanFilePath(dir, strconv.FormatInt(ms, 36)+"-"+slug)
		// Claim the name first, then fill it atomically.
		f, err := workspace.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("creating %s: %w", path, err)
		}
		f.Close()
		if err := workspace.WriteFile(path, []byte(plan), 0o644); err != nil {
			workspace.Remove(path)
			return "", fmt.Errorf("writing %s: %w", path, err)
		}
		return path, nil
	}
}

// ReadPlan returns the plan saved at path; ok is false when it is missing
// or cannot be read.
func ReadPlan(path string) (plan string, ok bool) {
	b, err := workspace.ReadFile(path)
	if err != nil {
		return "", false
	}
	return string(b), true
}
