package conductor

import (
	"fmt"
	"slices"
	"strings"

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
	w := c.opts.ContextWindow
	if w == 0 {
		w = ContextWindowOf(c.Model())
	}
	return skills.Listing(c.skills.ForModel(c.opts.SkillFilter), skills.Budget(w))
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
