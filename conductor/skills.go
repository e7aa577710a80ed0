package conductor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/skills"
)

// openSkills finds the skills of the session (unless the caller gave
// them or turned them off) and, when the model may use one, adds the
// Skill tool to the session's tools: it runs through the session's Box
// like any tool, so addons and hooks see its calls.
func (c *Conductor) openSkills(so *session.Options) {
	set := c.opts.Skills
	if set == nil && !c.opts.NoSkills {
		if dir, err := session.WorkDir(so.Dir); err == nil {
			set = skills.Discover(skills.Options{Dir: dir})
		}
	}
	c.skills = set
	if len(set.ForModel(c.opts.SkillFilter)) > 0 {
		so.Extra = append(slices.Clip(so.Extra), skills.Tool(set, c.opts.SkillFilter, c.SessionID))
	}
}

// compose is the system prompt: the briefing of the tools and the
// project, then the listing of the skills the model may load, bounded to
// a share of the context window; and the briefing's warnings.
func (c *Conductor) compose() (string, []string) {
	b, warnings := briefing(c.sess.Dir(), c.sess.Box().Specs(), c.opts.AppendSystem)
	if c.opts.System != "" {
		b, warnings = ownBriefing(c.opts.System, c.opts.AppendSystem), nil
	}
	if listing, _ := c.skillListing(); listing != "" {
		b += "\n# Skills\n\n" + listing
	}
	return b, warnings
}

// skillListing is the model's listing of skills and the ids left out of
// it for lack of room; none when the Skill tool is denied.
func (c *Conductor) skillListing() (string, []string) {
	if c.perm.removes(skills.ToolName) {
		return "", nil
	}
	return skills.Listing(c.skills.ForModel(c.opts.SkillFilter), skills.Budget(c.window()))
}

// Skills are the session's skills (nil when skills are off).
func (c *Conductor) Skills() *skills.Set { return c.skills }

// skillNotices tells the user what the model will not see: skills not
// loaded, and skills left out of the listing for lack of room.
func (c *Conductor) skillNotices() {
	if n := c.skills.Count(skills.Error); n > 0 {
		c.emit(Notice{Text: fmt.Sprintf("%d skill file(s) could not be loaded; indusr skills check says why", n)})
	}
	if _, omitted := c.skillListing(); len(omitted) > 0 {
		c.emit(Notice{Text: fmt.Sprintf("%d skills are named but not described to the model, for lack of room in the context window: %s",
			len(omitted), strings.Join(omitted, ", "))})
	}
}

// loadedSkill is a skill's instructions as the model last received them.
type loadedSkill struct{ id, text string }

// Bounds on the instructions a compaction carries over: one skill's up
// to about 5,000 tokens (the format's advice for a body), all of them
// together up to a tenth of the context window, so that the compacted
// conversation is still far from the window.
const (
	maxCarried      = 5000 * skills.BytesPerToken
	carriedOfWindow = 0.1
)

// expand turns "/id args" and "$id" mentions into the skills'
// instructions, noting each skill used.
func (c *Conductor) expand(prompt string) string {
	sid := c.SessionID()
	text, used := c.skills.Expand(prompt, sid)
	_, args, _ := skills.Slash(prompt)
	for _, id := range used {
		if sk, ok := c.skills.Lookup(id); ok {
			c.noteSkill(id, sk.Instructions(args, sid))
		}
	}
	return text
}

// noteSkillUses notes the skills the model loaded through the Skill tool.
func (c *Conductor) noteSkillUses(uses, results []provider.Block) {
	for i, u := range uses {
		if u.Name != skills.ToolName || i >= len(results) || results[i].IsError {
			continue
		}
		var in struct{ Skill string }
		json.Unmarshal(u.Input, &in)
		c.noteSkill(strings.TrimPrefix(in.Skill, "/"), results[i].Text)
	}
}

func (c *Conductor) noteSkill(id, text string) {
	c.loaded = slices.DeleteFunc(c.loaded, func(l loadedSkill) bool { return l.id == id })
	c.loaded = append(c.loaded, loadedSkill{id, text})
}

// carriedSkills follows a compaction's summary: the instructions of the
// skills loaded so far, the latest first, within the bounds above.
func (c *Conductor) carriedSkills() string {
	if len(c.loaded) == 0 {
		return ""
	}
	room := int(float64(c.window()) * carriedOfWindow * skills.BytesPerToken)
	var b strings.Builder
	for i := len(c.loaded) - 1; i >= 0; i-- {
		l := c.loaded[i]
		text := l.text
		if len(text) > maxCarried {
			text = strings.ToValidUTF8(text[:maxCarried], "") + "\n[cut; call Skill with " + l.id + " for the whole]"
		}
		entry := "\n\n<skill name=\"" + l.id + "\">\n" + text + "\n</skill>"
		if b.Len()+len(entry) > room {
			break
		}
		b.WriteString(entry)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nThe instructions of the skills loaded before the compaction still apply:" + b.String()
}
