package transcript

import (
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/provider"
)

// New conversations are named by UUIDv7s, as Claude Code and the Agent
// SDK name sessions; a conversation of an earlier version, named by a
// ULID, is still listed, resumed by its id and continued as the latest.
func TestUUIDsNewULIDsStillResume(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	key, err := userKey()
	if err != nil {
		t.Fatal(err)
	}
	say := func(tr *Transcript, text string) {
		t.Helper()
		m := provider.UserText(text)
		if err := tr.Append(Line{Kind: MessageLine, Message: &m}); err != nil {
			t.Fatal(err)
		}
		tr.Close()
	}
	fresh, err := New(dir, "anthropic/m")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := uuid.Parse(fresh.ID()); err != nil || u.Version() != 7 || u.String() != fresh.ID() {
		t.Fatalf("new id %q is no UUIDv7 (%v)", fresh.ID(), err)
	}
	say(fresh, "new")
	old := start(dir, "anthropic/m", ulid.Make().String(), key)
	say(old, "old")

	tr, lines, err := Open(dir, old.ID())
	if err != nil || len(Messages(lines)) != 1 || Messages(lines)[0].Text() != "old" {
		t.Fatalf("resume of the ULID conversation: %v %+v", err, lines)
	}
	tr.Close()
	latest, _, err := Latest(dir)
	if err != nil || latest.ID() != old.ID() {
		t.Fatalf("latest %v %v, want the ULID one, written last", latest, err)
	}
	latest.Close()
	infos, err := List(dir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("list %+v %v", infos, err)
	}
}

// Only a canonical id names a transcript: no path, no other spelling of
// a UUID that would name another file for the same session.
func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"0190b6d2-7c1e-7abc-8def-0123456789ab":          true,
		"01J9ZQ3V5K8W2M4N6P7R8S9T0V":                    true,
		"0190B6D2-7C1E-7ABC-8DEF-0123456789AB":          false,
		"{0190b6d2-7c1e-7abc-8def-0123456789ab}":        false,
		"urn:uuid:0190b6d2-7c1e-7abc-8def-0123456789ab": false,
		"0190b6d27c1e7abc8def0123456789ab":              false,
		"../../etc/passwd":                              false,
		"":                                              false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
}
