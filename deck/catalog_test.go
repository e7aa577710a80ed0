package deck

import (
	"reflect"
	"slices"
	"testing"
)

// catalogBuiltins is the fixed order of the built-ins; rows present in the
// catalog must appear in this order, before any app card.
var catalogBuiltins = []string{"read", "ls", "grep", "find", "websearch", "webfetch", "todo_read",
	"write", "edit", "bash", "process", "todo_set"}

var catalogAppCards = []string{"todo", "bg-process", "task", "saas-action", "memory", "enter_plan_mode", "exit_plan_mode"}

// readOnlyBuiltins are the observe-only built-ins.
var readOnlyBuiltins = []string{"read", "ls", "grep", "find", "websearch", "webfetch", "todo_read"}

// TestCatalogOrder pins the catalog: exactly the 12 built-ins and 7
// app cards, in this order, nothing more.
func TestCatalogOrder(t *testing.T) {
	t.Parallel()
	if got, want := IDs(), slices.Concat(catalogBuiltins, catalogAppCards); !reflect.DeepEqual(got, want) {
		t.Errorf("catalog = %v\nwant     %v", got, want)
	}
}

// TestProfileCounts checks what each profile provisions: all 19, survey
// the 12 built-ins, authoring the 7 read-only built-ins.
func TestProfileCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Profile
		want []string
	}{
		{All, slices.Concat(catalogBuiltins, catalogAppCards)},
		{Survey, catalogBuiltins},
		{Authoring, readOnlyBuiltins},
	} {
		t.Run(tc.p.String(), func(t *testing.T) {
			t.Parallel()
			d, err := Provision(tc.p, Setup{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var got []string
			for _, tl := range d.Tools() {
				got = append(got, tl.Spec().Name)
			}
			if len(got) != len(tc.want) || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s provisions %d tools %v, want %d %v", tc.p, len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

func TestDerivedLookupsAgreeWithCatalog(t *testing.T) {
	t.Parallel()
	cards := Catalog()
	idx := Index()
	ids := IDs()
	if len(idx) != len(cards) || len(ids) != len(cards) {
		t.Fatalf("index %d, ids %d, catalog %d", len(idx), len(ids), len(cards))
	}
	for i, c := range cards {
		if ids[i] != c.ID {
			t.Errorf("IDs()[%d] = %q, catalog has %q", i, ids[i], c.ID)
		}
		if idx[c.ID] != i {
			t.Errorf("Index()[%q] = %d, want %d", c.ID, idx[c.ID], i)
		}
		if !Has(c.ID) {
			t.Errorf("Has(%q) = false", c.ID)
		}
		got, ok := Find(c.ID)
		if !ok || got.ID != c.ID || got.Title != c.Title || !reflect.DeepEqual(got.Profiles, c.Profiles) {
			t.Errorf("Find(%q) = %+v, %v", c.ID, got, ok)
		}
		p, ok := ProfilesOf(c.ID)
		if !ok || !reflect.DeepEqual(p, c.Profiles) {
			t.Errorf("ProfilesOf(%q) = %v", c.ID, p)
		}
		for _, prof := range Profiles() {
			in := slices.ContainsFunc(CardsFor(prof), func(x Card) bool { return x.ID == c.ID })
			if in != c.In(prof) {
				t.Errorf("CardsFor(%s) membership of %q = %v, Card.In says %v", prof, c.ID, in, c.In(prof))
			}
		}
	}
	if Has("nope") {
		t.Error(`Has("nope")`)
	}
	if _, ok := Find("nope"); ok {
		t.Error(`Find("nope") found a row`)
	}
	if _, ok := ProfilesOf("nope"); ok {
		t.Error(`ProfilesOf("nope") found a row`)
	}
}

func TestCatalogIsACopy(t *testing.T) {
	t.Parallel()
	c := Catalog()
	c[0].ID = "mutated"
	Index()["mutated"] = 0
	if IDs()[0] == "mutated" || Has("mutated") {
		t.Error("changing a returned slice or map changed the catalog")
	}
}

func TestIndexFirstOccurrenceWins(t *testing.T) {
	t.Parallel()
	idx := indexOf([]Card{{ID: "a"}, {ID: "b"}, {ID: "a"}})
	if idx["a"] != 0 || idx["b"] != 1 || len(idx) != 2 {
		t.Errorf("indexOf = %v", idx)
	}
}

// TestProfileInversion pins the deliberate naming: Authoring is the
// read-only set, Survey every built-in, All built-ins plus app cards.
func TestProfileInversion(t *testing.T) {
	t.Parallel()
	ids := func(cards []Card) []string {
		var out []string
		for _, c := range cards {
			out = append(out, c.ID)
		}
		return out
	}
	if got, want := ids(CardsFor(Authoring)), readOnlyBuiltins; !reflect.DeepEqual(got, want) {
		t.Errorf("Authoring = %v, want the read-only built-ins %v", got, want)
	}
	if got, want := ids(CardsFor(Survey)), catalogBuiltins; !reflect.DeepEqual(got, want) {
		t.Errorf("Survey = %v, want every built-in %v", got, want)
	}
	if got, want := ids(CardsFor(All)), IDs(); !reflect.DeepEqual(got, want) {
		t.Errorf("All = %v, want the whole catalog %v", got, want)
	}
	for _, c := range Catalog() {
		var want []Profile
		switch {
		case slices.Contains(readOnlyBuiltins, c.ID):
			want = []Profile{Authoring, Survey}
		case slices.Contains(catalogBuiltins, c.ID):
			want = []Profile{Survey}
		default:
			want = []Profile{All}
		}
		if !reflect.DeepEqual(c.Profiles, want) {
			t.Errorf("%s membership = %v, want %v", c.ID, c.Profiles, want)
		}
	}
}

// TestBuiltinReadOnlyAgrees checks that a tool's own ReadOnly flag matches
// its catalog membership, so permission gates and listings agree.
func TestBuiltinReadOnlyAgrees(t *testing.T) {
	t.Parallel()
	setup := Setup{Dir: t.TempDir()}
	for _, c := range Catalog() {
		t.Run(c.ID, func(t *testing.T) {
			s := c.Build(setup).Spec()
			if s.Name != c.ID {
				t.Errorf("built tool is named %q", s.Name)
			}
			if c.In(Authoring) != s.ReadOnly && !slices.Contains(catalogAppCards, c.ID) {
				t.Errorf("ReadOnly = %v but Authoring membership = %v", s.ReadOnly, c.In(Authoring))
			}
			if s.Label == "" || s.Description == "" || len(s.InputSchema) == 0 {
				t.Errorf("incomplete spec: %+v", s)
			}
		})
	}
}

func TestParseProfile(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles() {
		got, err := ParseProfile(p.String())
		if err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %v, %v", p, got, err)
		}
	}
	if got, _ := ParseProfile("SURVEY"); got != Survey {
		t.Errorf("case-insensitive parse = %v", got)
	}
	if _, err := ParseProfile("everything"); err == nil {
		t.Error("unknown profile accepted")
	}
	var p Profile
	if err := p.Set("authoring"); err != nil || p != Authoring || p.Type() != "profile" {
		t.Errorf("Set = %v, %v", p, err)
	}
	if Profile(9).String() != "Profile(9)" {
		t.Error("unnamed profile string")
	}
}

// TestEveryProfileHandled loops up to profileEnd, not over the hand-kept
// Profiles list, so a Profile added without a name, a place in Profiles or
// a parse fails here.
func TestEveryProfileHandled(t *testing.T) {
	t.Parallel()
	if got := len(Profiles()); got != int(profileEnd)-1 {
		t.Errorf("Profiles() lists %d profiles, the constants define %d", got, profileEnd-1)
	}
	for p := Authoring; p < profileEnd; p++ {
		if !slices.Contains(Profiles(), p) || !p.known() {
			t.Errorf("profile %d is missing from Profiles()", p)
		}
		if got, err := ParseProfile(p.String()); err != nil || got != p {
			t.Errorf("profile %d: ParseProfile(%q) = %v, %v", p, p, got, err)
		}
	}
	if profileEnd.known() || Profile(0).known() {
		t.Error("known() admits a value that is not a profile")
	}
}

// The built-in tools say they stop when their context ends (the Box runs
// them on the caller's goroutine), except bash and process, which give
// what they stop a grace period; the app cards, which call runners the
// host supplies, do not.
func TestCancellableCards(t *testing.T) {
	t.Parallel()
	for _, c := range Catalog() {
		want := !slices.Contains(catalogAppCards, c.ID) && c.ID != "bash" && c.ID != "process"
		if c.Cancellable != want {
			t.Errorf("%s: Cancellable = %v, want %v", c.ID, c.Cancellable, want)
		}
	}
}
