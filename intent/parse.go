package intent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Parse turns a tool call (a variant's name and its JSON arguments) into
// the intent it names. Hidden variants parse too: the user interface
// dispatches them by name. Arguments are checked against the variant's
// schema first; empty or null arguments count as {}. Failures are an
// *UnknownError or an *ArgumentError.
func (s *Set[I]) Parse(name string, args json.RawMessage) (I, error) {
	i, ok := s.byName[name]
	if !ok {
		var none I
		return none, &UnknownError{Set: s.name, Name: name, Known: s.Names()}
	}
	in, err := s.variants[i].decode(args)
	if err != nil {
		return in, &ArgumentError{Intent: name, Err: err}
	}
	return in, nil
}

// UnknownError reports a tool call whose name is no variant of the set.
type UnknownError struct {
	Set   string   // the modality
	Name  string   // the name that was called
	Known []string // the visible names, for the message
}

func (e *UnknownError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("%s has no intent named %q", e.Set, e.Name)
	}
	return fmt.Sprintf("%s has no intent named %q; its intents are %s", e.Set, e.Name, strings.Join(e.Known, ", "))
}

// ArgumentError reports arguments that do not fit the variant's schema:
// not JSON, not an object, a missing or unknown field, a wrong type. Err
// names the field and says what was expected.
type ArgumentError struct {
	Intent string // the variant's name
	Err    error
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %v", e.Intent, e.Err)
}

// Unwrap returns the validation or decoding error.
func (e *ArgumentError) Unwrap() error { return e.Err }
