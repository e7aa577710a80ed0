package tool

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
)

// validatingRe matches the path prefixes jsonschema-go puts on its errors:
// "validating /properties/todos/items/properties/status: ".
// It is compiled on first use: only failed validations need it, and
// package initialisation is on every command's start-up path.
var validatingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`validating (root|/[^:]*): `) })

// explainValidation turns a jsonschema-go error chain into one line that
// names the field as a JSON path of the input (todos[2].status) and keeps
// the reason; an unknown property that is close to a known one gets a
// "did you mean" hint. root is the tool's schema and instance the decoded
// input that failed it.
func explainValidation(err error, root *jsonschema.Schema, instance any) string {
	msg := err.Error()
	matches := validatingRe().FindAllStringSubmatchIndex(msg, -1)
	if len(matches) == 0 {
		return msg
	}
	last := matches[len(matches)-1]
	field, at := locate(root, instance, msg[last[2]:last[3]])
	reason := plainNumbers(msg[last[1]:]) + didYouMean(msg[last[1]:], at)
	if field == "" {
		return reason
	}
	return "field " + field + ": " + reason
}

// ratNumberRe and floatNumberRe match how jsonschema-go prints the numbers
// of minimum/maximum errors: the value as a big.Rat ("700000/1") and the
// bound with six decimals ("600000.000000").
var (
	ratNumberRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(-?\d+)/1\b`) })
	floatNumberRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(-?\d+)\.0{6}\b`) })
)

// plainNumbers writes whole numbers in a validation reason as people do:
// "maximum: 700000 is greater than 600000".
func plainNumbers(reason string) string {
	reason = ratNumberRe().ReplaceAllString(reason, "$1")
	return floatNumberRe().ReplaceAllString(reason, "$1")
}

// locate converts a schema pointer like /properties/todos/items/properties/status
// into the input path it failed at, todos[2].status, and returns the schema
// at that pointer (nil when it cannot be followed). The validator reports
// schema locations, not instance positions, so the index of an array item
// is found by checking the input's items against the item schema: the
// first that fails is the one the validator stopped at. Where the input
// cannot be followed the path says "[]" (any item) or ".*" (any key).
func locate(root *jsonschema.Schema, instance any, pointer string) (string, *jsonschema.Schema) {
	if pointer == "root" {
		return "", root
	}
	var sb strings.Builder
	s, inst, known := root, instance, true
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 >= len(parts) {
				return sb.String(), nil
			}
			i++
			name := strings.NewReplacer("~1", "/", "~0", "~").Replace(parts[i])
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(name)
			if s != nil {
				s = s.Properties[name]
			}
			m, ok := inst.(map[string]any)
			inst, known = m[name], known && ok
		case "items":
			var next *jsonschema.Schema
			if s != nil {
				next = s.Items
			}
			arr, ok := inst.([]any)
			idx := -1
			if known && ok {
				idx = firstInvalid(root, next, len(arr), func(i int) any { return arr[i] })
			}
			if idx < 0 {
				sb.WriteString("[]")
				known = false
			} else {
				fmt.Fprintf(&sb, "[%d]", idx)
				inst = arr[idx]
			}
			s = next
		case "prefixItems":
			if i+1 >= len(parts) {
				return sb.String(), nil
			}
			i++
			n, err := strconv.Atoi(parts[i])
			if err != nil {
				return sb.String(), nil
			}
			sb.WriteString("[" + parts[i] + "]")
			if s != nil && n < len(s.PrefixItems) {
				s = s.PrefixItems[n]
			} else {
				s = nil
			}
			arr, ok := inst.([]any)
			if known = known && ok && n < len(arr); known {
				inst = arr[n]
			}
		case "additionalProperties":
			var next *jsonschema.Schema
			if s != nil {
				next = s.AdditionalProperties
			}
			m, ok := inst.(map[string]any)
			idx := -1
			var keys []string
			if known && ok {
				keys = make([]string, 0, len(m))
				for k := range m {
					if s == nil || s.Properties[k] == nil {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				idx = firstInvalid(root, next, len(keys), func(i int) any { return m[keys[i]] })
			}
			if idx < 0 {
				sb.WriteString(".*")
				known = false
			} else {
				sb.WriteString("." + keys[idx])
				inst = m[keys[idx]]
			}
			s = next
		default:
			// A location this walk does not follow ($defs, allOf, …):
			// the path so far is still right, the schema is unknown.
			s, known = nil, false
		}
	}
	return sb.String(), s
}

// firstInvalid returns the index of the first of n values that sub
// refuses, or -1. sub is resolved on its own (with root's definitions, for
// references); this runs only after a validation has failed.
func firstInvalid(root, sub *jsonschema.Schema, n int, value func(int) any) int {
	if sub == nil || n == 0 {
		return -1
	}
	// Resolve a copy: the tool's schema is shared by concurrent calls and
	// must not be touched.
	raw, err := json.Marshal(sub)
	if err != nil {
		return -1
	}
	c := new(jsonschema.Schema)
	if json.Unmarshal(raw, c) != nil {
		return -1
	}
	if c.Defs == nil && root.Defs != nil {
		if raw, err = json.Marshal(root.Defs); err != nil || json.Unmarshal(raw, &c.Defs) != nil {
			return -1
		}
	}
	r, err := c.Resolve(nil)
	if err != nil {
		return -1
	}
	for i := range n {
		if r.Validate(value(i)) != nil {
			return i
		}
	}
	return -1
}

var quotedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })

// didYouMean returns a hint for the unknown properties a reason like
// `unexpected additional properties ["file_path"]` names, each matched to
// the closest property the schema at knows; "" when none is close.
func didYouMean(reason string, at *jsonschema.Schema) string {
	const prefix = "unexpected additional properties "
	if at == nil || len(at.Properties) == 0 || !strings.HasPrefix(reason, prefix) {
		return ""
	}
	known := make([]string, 0, len(at.Properties))
	for k := range at.Properties {
		known = append(known, k)
	}
	slices.Sort(known)
	var hints []string
	for _, q := range quotedRe().FindAllString(strings.TrimPrefix(reason, prefix), -1) {
		name, err := strconv.Unquote(q)
		if err != nil {
			continue
		}
		if k := closest(name, known); k != "" {
			hints = append(hints, fmt.Sprintf("%q instead of %q", k, name))
		}
	}
	if len(hints) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(hints, ", ") + "?"
}

// closest returns the known property an unknown name most likely meant, or
// "". In order of preference: the same name but for case, '_' and '-'
// (filePath, file_path); a small edit distance (1 for names of 3 or 4
// letters, 2 from 5, so short names do not all match each other); one of
// the words of the name (file_path → path) or the reverse.
func closest(name string, known []string) string {
	n := normalize(name)
	best, bestScore := "", 4
	for _, k := range known {
		nk := normalize(k)
		score := 4
		switch d := levenshtein(n, nk); {
		case n == nk:
			score = 0
		case d <= maxDistance(min(len(n), len(nk))):
			score = d
		case slices.Contains(words(name), nk) || slices.Contains(words(k), n):
			score = 3
		}
		if score < bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

func maxDistance(length int) int {
	switch {
	case length >= 5:
		return 2
	case length >= 3:
		return 1
	}
	return 0
}

// normalize lowercases s and drops '_' and '-'.
func normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// words splits a property name at '_', '-' and lower-to-upper case
// changes, lowercased: "file_path" and "filePath" are [file path].
func words(s string) []string {
	var out []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case r == '_' || r == '-':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return out
}

// levenshtein is the edit distance between a and b, by rune.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
