package whiteboard

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/indusagi/induscode/intent"
)

// Limits a model might otherwise overrun. They are a whiteboard's, not a
// document's: a note is a few words, the canvas is bounded, and undo
// history is kept as whole boards.
const (
	maxContent  = 500    // characters in one note
	canvasLimit = 100000 // |x| and |y| in canvas units
	maxUndo     = 100    // changes Undo can revert
)

// Modality is the whiteboard's reducer. It is also an intent.Compiler: it
// recomputes Board.Bounds after every change.
type Modality struct{}

var (
	_ intent.Modality[Board, Intent] = Modality{}
	_ intent.Compiler[Board]         = Modality{}
)

// New returns a session of an empty whiteboard.
func New() *intent.Session[Board, Intent] {
	return intent.NewSession[Board, Intent](Modality{}, Board{})
}

// Reduce applies one intent. Every successful change except Undo itself
// can be undone; a failed one changes nothing and tells the agent why.
func (Modality) Reduce(b Board, in Intent, fx intent.Effects) (Board, error) {
	switch in := in.(type) {
	case AddText:
		if strings.TrimSpace(in.Content) == "" {
			return b, fmt.Errorf("content is empty; give the text of the note")
		}
		if n := utf8.RuneCountInString(in.Content); n > maxContent {
			return b, fmt.Errorf("content has %d characters; a note holds at most %d", n, maxContent)
		}
		if err := onCanvas(in.X, in.Y); err != nil {
			return b, err
		}
		next := b.remember()
		next.issued++
		e := Element{ID: fmt.Sprintf("e%d", next.issued), X: in.X, Y: in.Y, Content: in.Content}
		next.Elements = append(slices.Clip(b.Elements), e)
		fx.Agent.Output(map[string]string{"id": e.ID})
		return next, nil
	case Move:
		i := slices.IndexFunc(b.Elements, func(e Element) bool { return e.ID == in.ID })
		if i < 0 {
			return b, b.unknown(in.ID)
		}
		if err := onCanvas(in.X, in.Y); err != nil {
			return b, err
		}
		next := b.remember()
		next.Elements = slices.Clone(b.Elements)
		next.Elements[i].X, next.Elements[i].Y = in.X, in.Y
		fx.Agent.Output(next.Elements[i])
		return next, nil
	case Select:
		var sel []string
		for _, id := range in.IDs {
			if _, ok := b.Element(id); !ok {
				return b, b.unknown(id)
			}
			if !slices.Contains(sel, id) {
				sel = append(sel, id)
			}
		}
		next := b.remember()
		next.Selected = sel
		fx.Agent.Output(map[string][]string{"selected": sel})
		return next, nil
	case Undo:
		if len(b.past) == 0 {
			return b, fmt.Errorf("nothing to undo")
		}
		prev := b.past[len(b.past)-1]
		prev.past = nil
		if n := len(b.past) - 1; n > 0 {
			prev.past = slices.Clip(b.past[:n])
		}
		fx.Agent.Output(map[string]int{"elements": len(prev.Elements), "undo_depth": len(prev.past)})
		return prev, nil
	case nil:
		return b, fmt.Errorf("no intent")
	}
	return b, fmt.Errorf("the whiteboard does not handle %T", in)
}

// Compile recomputes the derived parts of the board.
func (Modality) Compile(b Board) Board {
	b.Bounds = Rect{}
	for i, e := range b.Elements {
		r := Rect{e.X, e.Y, e.X + float64(utf8.RuneCountInString(e.Content)), e.Y + 1}
		if i == 0 {
			b.Bounds = r
			continue
		}
		b.Bounds = Rect{min(b.Bounds.MinX, r.MinX), min(b.Bounds.MinY, r.MinY), max(b.Bounds.MaxX, r.MaxX), max(b.Bounds.MaxY, r.MaxY)}
	}
	return b
}

// remember returns a copy of b whose history ends with b, keeping at most
// maxUndo boards.
func (b Board) remember() Board {
	snap := b
	snap.past = nil
	next := b
	next.past = append(slices.Clip(b.past), snap)
	if len(next.past) > maxUndo {
		next.past = slices.Clip(next.past[len(next.past)-maxUndo:])
	}
	return next
}

func (b Board) unknown(id string) error {
	if len(b.Elements) == 0 {
		return fmt.Errorf("no element %q: the board is empty; add_text creates elements", id)
	}
	return fmt.Errorf("no element %q; the board has %s", id, strings.Join(b.ids(), ", "))
}

func onCanvas(x, y float64) error {
	if math.Abs(x) > canvasLimit || math.Abs(y) > canvasLimit {
		return fmt.Errorf("(%g, %g) is off the canvas; x and y must be within ±%d", x, y, canvasLimit)
	}
	return nil
}
