package skills

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/indusagi/induscode/tool"
)

// ToolName is the name the model calls skills by, as in Claude Code.
const ToolName = "Skill"

const toolSchema = `{"type":"object","properties":{` +
	`"skill":{"type":"string","description":"The id of a listed skill, such as pdf"},` +
	`"args":{"type":"string","description":"Optional arguments for the skill"}},` +
	`"required":["skill"],"additionalProperties":false}`

const toolDescription = "Load a skill: instructions, scripts and references for a kind of task, " +
	"listed with their ids in the conversation. When a listed skill covers the task, call this first, " +
	"then follow the instructions it returns; they name the skill's folder, where its scripts and references are " +
	"(run and read them with the usual tools). Use only ids from the list."

// skillTool is the Skill tool over a set of skills.
type skillTool struct {
	set     *Set
	only    []string
	session func() string
}

// Tool returns the tool through which the model loads a skill by id
// ({"skill": id, "args": optional}): the result is the skill's
// [Skill.Instructions]. Only skills the model may use are loaded (see
// [Set.ForModel]; a non-nil only narrows them); session gives the id
// substituted for ${CLAUDE_SESSION_ID}.
func Tool(set *Set, only []string, session func() string) tool.Tool {
	return &skillTool{set: set, only: only, session: session}
}

var _ tool.Tool = (*skillTool)(nil)

func (t *skillTool) Spec() tool.Spec {
	return tool.Spec{Name: ToolName, Label: "Use skill", Description: toolDescription,
		InputSchema: json.RawMessage(toolSchema), ReadOnly: true}
}

// Cancellable: the call only reads what is in memory.
func (t *skillTool) Cancellable() bool { return true }

func (t *skillTool) Run(_ context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Skill) == "" {
		return tool.Errorf(`Skill takes {"skill": "<id>", "args": "<optional>"}; give the id of a listed skill`)
	}
	id := strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	sk, ok := t.set.Lookup(id)
	if ok && sk.DisableModelInvocation {
		return tool.Errorf("the skill %q is run only by the user (as /%s); do not call it", id, id)
	}
	if !ok || (t.only != nil && !contains(t.only, id)) {
		var ids []string
		for _, s := range t.set.ForModel(t.only) {
			ids = append(ids, s.ID)
		}
		if len(ids) == 0 {
			return tool.Errorf("no skill %q: no skills are available in this session", id)
		}
		return tool.Errorf("no skill %q; the skills are: %s", id, strings.Join(ids, ", "))
	}
	sid := ""
	if t.session != nil {
		sid = t.session()
	}
	return tool.Text(sk.Instructions(in.Args, sid))
}
