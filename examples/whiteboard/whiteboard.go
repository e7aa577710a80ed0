// Package whiteboard is a small example modality for package intent: a
// canvas of text notes that an AI agent can add and move, and that a user
// interface can also select and undo (intents hidden from the model). It
// shows how to register an intent family, write its reducer, and serve the
// result as tools; lesson.go shows a parent document whose slides are
// whiteboards.
package whiteboard

import (
	"fmt"
	"strings"

	"github.com/indusagi/induscode/intent"
)

// Intent is one whiteboard command. The variants are AddText, Move,
// Select and Undo.
type Intent interface{ whiteboardIntent() }

// AddText puts a text note on the board.
type AddText struct {
	X       float64 `json:"x" jsonschema:"left edge of the note, in canvas units"`
	Y       float64 `json:"y" jsonschema:"top edge of the note, in canvas units"`
	Content string  `json:"content" jsonschema:"the text of the note"`
}

// Move puts an existing element at a new position.
type Move struct {
	ID string  `json:"id" jsonschema:"the element to move, as add_text returned it (e1, e2, ...)"`
	X  float64 `json:"x" jsonschema:"new left edge, in canvas units"`
	Y  float64 `json:"y" jsonschema:"new top edge, in canvas units"`
}

// Select makes IDs the selection (an empty list clears it). It is a user
// interface intent, hidden from the model.
type Select struct {
	IDs []string `json:"ids" jsonschema:"the elements to select"`
}

// Undo reverts the last change (selection included). It is hidden from
// the model.
type Undo struct{}

func (AddText) whiteboardIntent() {}
func (Move) whiteboardIntent()    {}
func (Select) whiteboardIntent()  {}
func (Undo) whiteboardIntent()    {}

// Intents registers the whiteboard's intent family. Each call builds a new
// set; build it once and share it.
func Intents() (*intent.Set[Intent], error) {
	return intent.NewSet("whiteboard",
		intent.Of[Intent, AddText](intent.Meta{
			Description: "Add a text note to the whiteboard at (x, y). Returns the new element's id, which move takes.",
		}),
		intent.Of[Intent, Move](intent.Meta{
			Description: "Move an element of the whiteboard so that its top-left corner is at (x, y).",
		}),
		intent.Of[Intent, Select](intent.Meta{Hidden: true, Description: "Select elements by id."}),
		intent.Of[Intent, Undo](intent.Meta{Hidden: true, Description: "Undo the last change."}),
	)
}

// Element is one text note on the board.
type Element struct {
	ID      string  `json:"id"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Content string  `json:"content"`
}

// Rect is an axis-aligned box in canvas units.
type Rect struct {
	MinX, MinY, MaxX, MaxY float64
}

// Board is the whiteboard's state. It is a value: the reducer never
// changes a Board it was given, it returns a new one.
type Board struct {
	// Elements are the notes in the order they were added.
	Elements []Element
	// Selected are the ids the user selected.
	Selected []string
	// Bounds is derived (by Compile): the box around every note, a note
	// being one unit high and one unit wide per character.
	Bounds Rect

	issued int     // element ids handed out so far
	past   []Board // earlier boards, oldest first, each without its own past
}

// Element returns the element with this id.
func (b Board) Element(id string) (Element, bool) {
	for _, e := range b.Elements {
		if e.ID == id {
			return e, true
		}
	}
	return Element{}, false
}

// UndoDepth is how many changes Undo can still revert.
func (b Board) UndoDepth() int { return len(b.past) }

// String draws the board as one line per element, selected ones marked.
func (b Board) String() string {
	if len(b.Elements) == 0 {
		return "(empty board)"
	}
	var sb strings.Builder
	for i, e := range b.Elements {
		if i > 0 {
			sb.WriteByte('\n')
		}
		mark := " "
		if b.selected(e.ID) {
			mark = "*"
		}
		fmt.Fprintf(&sb, "%s%s (%g, %g) %q", mark, e.ID, e.X, e.Y, e.Content)
	}
	return sb.String()
}

func (b Board) selected(id string) bool {
	for _, s := range b.Selected {
		if s == id {
			return true
		}
	}
	return false
}

func (b Board) ids() []string {
	out := make([]string, len(b.Elements))
	for i, e := range b.Elements {
		out[i] = e.ID
	}
	return out
}
