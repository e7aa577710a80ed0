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
