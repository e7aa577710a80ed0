package whiteboard

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/intent"
)

// A lesson is the example of a parent document: a title and a fixed list
// of slides, each slide a whiteboard of its own (a child session, created
// on its first use). The lesson keeps a summary of every slide, folded in
// after each change of the slide.

// LessonIntent is one command of the lesson itself.
type LessonIntent interface{ lessonIntent() }

// SetTitle names the lesson.
type SetTitle struct {
	Title string `json:"title" jsonschema:"the lesson's title"`
}

func (SetTitle) lessonIntent() {}

// LessonIntents registers the lesson's own intent family.
func LessonIntents() (*intent.Set[LessonIntent], error) {
	return intent.NewSet("lesson",
		intent.Of[LessonIntent, SetTitle](intent.Meta{Description: "Set the title of the lesson."}),
	)
}

// Lesson is the parent's state.
type Lesson struct {
	Title string
	// Slides summarise the slides in use, in the lesson's slide order.
	Slides []Slide
	// Notes is derived (by Compile): the notes on all slides.
	Notes int

	order []string // every slide the lesson has, in order
}

// Slide is what the lesson knows of one slide's whiteboard.
type Slide struct {
	ID    string
	Notes []string // the contents of its elements, in order
}

// String draws the lesson: its title, then one line per slide in use.
func (l Lesson) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%q: %d notes", l.Title, l.Notes)
	for _, s := range l.Slides {
		fmt.Fprintf(&sb, "\n  %s: %s", s.ID, strings.Join(s.Notes, " | "))
	}
	return sb.String()
}

// LessonModality is the lesson's reducer; it folds slides in and recompiles
// the note count.
type LessonModality struct{}

var (
	_ intent.ParentModality[Lesson, LessonIntent, Board] = LessonModality{}
	_ intent.Compiler[Lesson]                            = LessonModality{}
)

// Reduce applies one of the lesson's own intents.
func (LessonModality) Reduce(l Lesson, in LessonIntent, fx intent.Effects) (Lesson, error) {
	switch in := in.(type) {
	case SetTitle:
		if strings.TrimSpace(in.Title) == "" {
			return l, fmt.Errorf("title is empty")
		}
		l.Title = in.Title
		fx.Agent.Output(fmt.Sprintf("the lesson is now called %q", in.Title))
		return l, nil
	}
	return l, fmt.Errorf("the lesson does not handle %T", in)
}

// Fold records the state of the slide id.
func (LessonModality) Fold(l Lesson, id string, b Board) Lesson {
	s := Slide{ID: id, Notes: make([]string, len(b.Elements))}
	for i, e := range b.Elements {
		s.Notes[i] = e.Content
	}
	slides := slices.Clone(l.Slides)
	if i := slices.IndexFunc(slides, func(s Slide) bool { return s.ID == id }); i >= 0 {
		slides[i] = s
	} else {
		slides = append(slides, s)
		rank := func(id string) int { return slices.Index(l.order, id) }
		slices.SortStableFunc(slides, func(a, b Slide) int { return rank(a.ID) - rank(b.ID) })
	}
	l.Slides = slides
	return l
}

// Compile counts the notes on every slide.
func (LessonModality) Compile(l Lesson) Lesson {
	l.Notes = 0
	for _, s := range l.Slides {
		l.Notes += len(s.Notes)
	}
	return l
}

// LessonSession is a lesson with its slides.
type LessonSession = intent.Parent[Lesson, LessonIntent, Board, Intent]

// NewLesson starts a lesson with the named slides. A slide's whiteboard is
// created when it is first used; a slide the lesson does not have cannot
// be warmed.
func NewLesson(title string, slides ...string) *LessonSession {
	order := slices.Clone(slides)
	warm := func(_ context.Context, id string) (*intent.Session[Board, Intent], error) {
		if !slices.Contains(order, id) {
			return nil, fmt.Errorf("the lesson has no slide %q; its slides are %s", id, strings.Join(order, ", "))
		}
		return New(), nil
	}
	return intent.NewParent[Lesson, LessonIntent, Board, Intent](LessonModality{}, Lesson{Title: title, order: order}, warm)
}
