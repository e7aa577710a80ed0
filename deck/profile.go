package deck

import (
	"fmt"
	"slices"
	"strings"
)

// Profile names a capability set a session can be provisioned with.
//
// The names are inverted on purpose, for compatibility: Authoring selects the
// observe-only built-ins, Survey every built-in including the mutating ones,
// and All every built-in plus the app cards. Do not "fix" them.
type Profile uint8

// The profiles, narrowest first.
const (
	Authoring Profile = iota + 1
	Survey
	All

	// profileEnd is one past the last Profile: keep it last, so that
	// TestEveryProfileHandled, which loops up to it, sees every new one.
	profileEnd
)

// Profiles returns every Profile, narrowest first. Each call returns a new
// slice, so a caller that changes it changes nothing else.
func Profiles() []Profile { return []Profile{Authoring, Survey, All} }

// known reports whether p is one of [Profiles] without building the slice.
func (p Profile) known() bool { return Authoring <= p && p < profileEnd }

// Membership tags carried by catalog rows. A profile selects the rows tagged
// with it, except All, which admits every row.
var (
	readOnlyMembership = []Profile{Authoring, Survey}
	mutatingMembership = []Profile{Survey}
	appCardMembership  = []Profile{All}
)

func (p Profile) String() string {
	switch p {
	case Authoring:
		return "authoring"
	case Survey:
		return "survey"
	case All:
		return "all"
	}
	return fmt.Sprintf("Profile(%d)", uint8(p))
}

// ParseProfile reads a profile name, ignoring case.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles() {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown profile %q: use authoring (read-only tools), survey (all built-in tools) or all (built-ins and app cards)", s)
}

// Set implements pflag.Value so a Profile can be a command-line flag.
func (p *Profile) Set(s string) error {
	v, err := ParseProfile(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Type implements pflag.Value.
func (p *Profile) Type() string { return "profile" }

// admits reports whether a row with the given membership belongs to p.
func (p Profile) admits(membership []Profile) bool {
	return p == All || slices.Contains(membership, p)
}
