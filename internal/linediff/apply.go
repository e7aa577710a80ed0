package linediff

import (
	"fmt"
	"strconv"
	"strings"
)

// Apply applies a unified diff (as [Unified] writes it, one file) to old,
// checking every context and removed line and every hunk count, the way
// patch does. A diff rendered with StripCR applies to the text with its
// "\r\n" line ends made plain.
func Apply(old, diff string) (string, error) {
	src := Lines(old)
	dl := strings.Split(diff, "\n")
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		return "", fmt.Errorf("no --- / +++ header")
	}
	var out []string
	pos := 0
	i := 2
	for i < len(dl) {
		if dl[i] == "" && i == len(dl)-1 {
			break
		}
		var oldR, newR string
		if _, err := fmt.Sscanf(dl[i], "@@ -%s +%s @@", &oldR, &newR); err != nil {
			return "", fmt.Errorf("line %d: bad hunk header %q", i, dl[i])
		}
		a, b, err1 := parseRange(oldR)
		c, d, err2 := parseRange(newR)
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("line %d: bad hunk header %q", i, dl[i])
		}
		start := a - 1
		if b == 0 {
			start = a
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q starts at %d, before %d or past %d", dl[i], start, pos, len(src))
		}
		if wantC := len(out) + (start - pos) + 1; d > 0 && c != wantC {
			return "", fmt.Errorf("hunk %q: new start %d, want %d", dl[i], c, wantC)
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		gotB, gotD := 0, 0
		last := byte(0)
		for ; i < len(dl) && !strings.HasPrefix(dl[i], "@@ "); i++ {
			l := dl[i]
			if l == "" {
				if i == len(dl)-1 {
					break
				}
				return "", fmt.Errorf("line %d: empty line inside a hunk", i)
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || strings.TrimSuffix(src[pos], "\n") != l[1:] {
					return "", fmt.Errorf("line %d: %q does not match source line %d", i, l, pos+1)
				}
				if l[0] == ' ' {
					out = append(out, src[pos])
					gotD++
				}
				pos++
				gotB++
			case '+':
				out = append(out, l[1:]+"\n")
				gotD++
			case '\\':
				if last != '-' {
					out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				}
			default:
				return "", fmt.Errorf("line %d: unknown prefix in %q", i, l)
			}
			last = l[0]
		}
		if gotB != b || gotD != d {
			return "", fmt.Errorf("hunk -%d,%d +%d,%d has %d old and %d new lines", a, b, c, d, gotB, gotD)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

// parseRange reads one side of a hunk header: "start,count" or "start"
// (a count of one).
func parseRange(r string) (start, count int, err error) {
	s, c, found := strings.Cut(r, ",")
	if start, err = strconv.Atoi(s); err != nil {
		return 0, 0, err
	}
	if !found {
		return start, 1, nil
	}
	count, err = strconv.Atoi(c)
	return start, count, err
}
