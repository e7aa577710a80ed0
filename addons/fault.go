package addons

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
)

// FaultKind classifies a [Fault].
type FaultKind uint8

// The fault kinds; the set is closed.
const (
	// LoadFault: an addon could not be found, read, parsed or loaded.
	LoadFault FaultKind = iota + 1
	// RegisterFault: an addon's register function failed or panicked.
	RegisterFault
	// HandlerFault: an event handler or interceptor stage failed at run
	// time (it panicked or returned the wrong payload type).
	HandlerFault
	// CommandFault: a command failed.
	CommandFault
	// ConflictFault: a command or tool name was already claimed, or a
	// command took a reserved name.
	ConflictFault

	// faultKindEnd is one past the last FaultKind: keep it last, so that
	// TestKindsAndFaultKindsNamed, which loops up to it, sees every new one.
	faultKindEnd
)

// FaultKinds returns every kind; each call returns a new slice.
func FaultKinds() []FaultKind {
	return []FaultKind{LoadFault, RegisterFault, HandlerFault, CommandFault, ConflictFault}
}

func (k FaultKind) String() string {
	switch k {
	case LoadFault:
		return "load"
	case RegisterFault:
		return "register"
	case HandlerFault:
		return "handler"
	case CommandFault:
		return "command"
	case ConflictFault:
		return "conflict"
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k FaultKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Causes of conflict faults, for errors.Is: a reserved name is not the
// same mistake as a name another addon took first.
var (
	ErrReservedName  = errors.New("the name is reserved for a core command")
	ErrDuplicateName = errors.New("another addon claimed the name first")
)

// Fault is one failure of an addon. Faults are handed to listeners, never
// returned up the loop: one broken addon does not stop the others.
type Fault struct {
	Kind  FaultKind
	Addon ID     // the addon concerned, if known
	File  string // the file concerned, if any
	Line  int    // the line in File, if known
	Msg   string // what went wrong and what to do
	Err   error  // the cause, if any
}

// Error reads "load fault in addon x: file:line: message: cause".
func (f *Fault) Error() string {
	s := f.Kind.String() + " fault"
	if f.Addon != "" {
		s += " in addon " + string(f.Addon)
	}
	s += ": "
	if f.File != "" {
		s += f.File
		if f.Line > 0 {
			s += fmt.Sprintf(":%d", f.Line)
		}
		s += ": "
	}
	s += f.Msg
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (f *Fault) Unwrap() error { return f.Err }

// faults fans faults out to listeners. A listener that panics is logged
// and the others still hear the fault.
type faults struct {
	mu        sync.Mutex
	next      int
	listeners map[int]func(*Fault)
	log       *slog.Logger
}

func (fs *faults) listen(fn func(*Fault)) (unsubscribe func()) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.listeners == nil {
		fs.listeners = make(map[int]func(*Fault))
	}
	id := fs.next
	fs.next++
	fs.listeners[id] = fn
	var once sync.Once
	return func() {
		once.Do(func() {
			fs.mu.Lock()
			delete(fs.listeners, id)
			fs.mu.Unlock()
		})
	}
}

func (fs *faults) report(f *Fault) {
	fs.mu.Lock()
	ids := make([]int, 0, len(fs.listeners))
	for id := range fs.listeners {
		ids = append(ids, id)
	}
	// Listeners hear faults in the order they subscribed.
	slices.Sort(ids)
	fns := make([]func(*Fault), len(ids))
	for i, id := range ids {
		fns[i] = fs.listeners[id]
	}
	fs.mu.Unlock()
	for _, fn := range fns {
		fs.call(fn, f)
	}
}

func (fs *faults) call(fn func(*Fault), f *Fault) {
	defer func() {
		if r := recover(); r != nil {
			log := fs.log
			if log == nil {
				log = slog.Default()
			}
			log.Error("addon fault listener panicked", "panic", r, "fault", f.Error())
		}
	}()
	fn(f)
}
