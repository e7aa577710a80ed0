package conductor

import "strings"

// ownBriefing is the briefing of a caller that brings its own system
// prompt ([Options.System]): that text, then the addition.
func ownBriefing(system, appendix string) string {
	b := strings.TrimSpace(system) + "\n"
	if appendix = strings.TrimSpace(appendix); appendix != "" {
		b += "\n" + appendix + "\n"
	}
	return b
}

// SetMode changes the permission mode of later runs (the Agent SDK's
// setPermissionMode). It waits for no run: during a Run or Compact it is
// refused with [ErrBusy], since the calls of the running turn were judged
// by the mode they started with.
func (c *Conductor) SetMode(m PermissionMode) error {
	if _, err := ParsePermissionMode(string(m)); err != nil {
		return err
	}
	if err := c.acquire("set mode"); err != nil {
		return err
	}
	defer c.release()
	c.perm.mode = m
	c.opts.Mode = m
	c.planning = m == Plan
	return nil
}
