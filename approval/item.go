package approval

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// Item is one thing an approval covers: a declaration as written, or a
// file a declaration runs. ID names it for people ("file hooks/x.sh",
// "hook PreToolUse Bash: ./x.sh"); Hash identifies its content.
type Item struct {
	ID   string `json:"id"`
	Hash string `json:"hash"`
	// Event and Matcher, for a hook that can block a tool call, keep
	// which calls it guards, so a guard edited or removed since its
	// approval still holds those calls (see the session's hooks).
	Event   string `json:"event,omitempty"`
	Matcher string `json:"matcher,omitempty"`
}

// Decl is the item of a declaration: id names it, text is everything in
// it that changes what runs or what is sent, as written.
func Decl(id, text string) Item { return Item{ID: id, Hash: hashOf([]byte(text))} }

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Sorted returns items by ID with duplicates (same ID) collapsed, the
// first kept.
func Sorted(items []Item) []Item {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b Item) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b Item) bool { return a.ID == b.ID })
}

// Covers reports whether the record holds every one of items with the
// same hash: the code they describe is what the user approved.
func (r Record) Covers(items []Item) bool {
	for _, it := range items {
		i, ok := slices.BinarySearchFunc(r.Items, it.ID, func(a Item, id string) int { return cmp.Compare(a.ID, id) })
		if !ok || r.Items[i].Hash != it.Hash {
			return false
		}
	}
	return true
}

// Change is one difference between an approval and what is there now.
type Change struct {
	// Kind is "added", "removed" or "changed".
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

func (c Change) String() string { return c.Kind + ": " + c.ID }

// Diff lists what differs between the approved items and the current
// ones, in ID order.
func Diff(approved, now []Item) []Change {
	a, n := Sorted(approved), Sorted(now)
	var out []Change
	i, j := 0, 0
	for i < len(a) || j < len(n) {
		switch {
		case j == len(n) || i < len(a) && a[i].ID < n[j].ID:
			out = append(out, Change{Kind: "removed", ID: a[i].ID})
			i++
		case i == len(a) || n[j].ID < a[i].ID:
			out = append(out, Change{Kind: "added", ID: n[j].ID})
			j++
		default:
			if a[i].Hash != n[j].Hash {
				out = append(out, Change{Kind: "changed", ID: n[j].ID})
			}
			i++
			j++
		}
	}
	return out
}
