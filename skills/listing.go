package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The listing's share of the context window and the size of a token in
// the estimate the budget is made in. Codex gives its skill list about 2%
// of the window; four bytes a token is the usual estimate for English
// text (a conservative one: Claude's tokenizer averages more).
const (
	ListingShare   = 0.02
	BytesPerToken  = 4
	minBudgetBytes = 8000 // Codex's budget when the window is unknown
	// maxBudgetBytes caps the listing of a large window at 5,000 tokens:
	// every request carries it, and a session's skills (with the Skill
	// tool's definition) should stay within 6,000 tokens of context
	// however large the window.
	maxBudgetBytes = 5000 * BytesPerToken
	// minDescription is as short as a description is cut before skills
	// are left out: shorter, it no longer says when to use the skill.
	minDescription = 80
)

// listingHead opens the listing.
const listingHead = "The following skills are available for use with the Skill tool. " +
	"When a skill below covers the task, call Skill with its id first and follow what it loads:\n\n"

// Budget is the bytes the listing may take for a context window of
// window tokens: ListingShare of it, at most 5,000 tokens' worth (and
// 8,000 bytes for a window not known).
func Budget(window int64) int {
	b := int(float64(window) * ListingShare * BytesPerToken)
	return min(max(b, minBudgetBytes), maxBudgetBytes)
}

// Listing is the block that shows the model its skills, one line each
// ("- id: description", the front matter's name in parentheses when it
// differs from the id), within budget bytes. When they do not fit, the
// descriptions are shortened first, to no less than minDescription bytes;
// then the last skills are left out, named on a closing line so that the
// model still knows they exist. omitted are those left out.
func Listing(skills []*Skill, budget int) (text string, omitted []string) {
	if len(skills) == 0 {
		return "", nil
	}
	longest := 0
	for _, s := range skills {
		longest = max(longest, len(s.Description))
	}
	size := func(n, limit int) int {
		total := len(listingHead)
		for _, s := range skills[:n] {
			total += len(prefix(s)) + min(len(s.Description), limit) + 1
		}
		if n < len(skills) {
			total += len(overflow(skills[n:]))
		}
		return total
	}
	n, limit := len(skills), longest
	if size(n, limit) > budget {
		// The longest cut that fits, by bisection: size grows with limit.
		lo, hi := minDescription, longest
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if size(n, mid) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		limit = lo
		for n > 0 && size(n, limit) > budget {
			n--
		}
	}
	var b strings.Builder
	b.WriteString(listingHead)
	for _, s := range skills[:n] {
		b.WriteString(prefix(s))
		b.WriteString(cut(s.Description, limit))
		b.WriteByte('\n')
	}
	for _, s := range skills[n:] {
		omitted = append(omitted, s.ID)
	}
	if n < len(skills) {
		b.WriteString(overflow(skills[n:]))
	}
	return b.String(), omitted
}

func prefix(s *Skill) string {
	if s.Name != "" && s.Name != s.ID {
		return "- " + s.ID + " (" + s.Name + "): "
	}
	return "- " + s.ID + ": "
}

func overflow(rest []*Skill) string {
	ids := make([]string, len(rest))
	for i, s := range rest {
		ids[i] = s.ID
	}
	return fmt.Sprintf("\n%d more skills are not described for lack of room; call Skill with one of these ids when its name fits the task: %s\n",
		len(rest), strings.Join(ids, ", "))
}

// cut shortens s to at most limit bytes, ending in "…" when cut.
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	end := max(limit-len("…"), 0)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return strings.TrimRight(s[:end], " ") + "…"
}
