package deck_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/indusagi/induscode/deck"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.golden.json from the catalog")

// TestCatalogSchemasGolden pins the input schema of every catalog tool:
// the model reads these, so a change (a lost default, a bound, an enum)
// must be a decision, visible in a diff of the golden file. Run
// `go test ./deck -run CatalogSchemas -update` after a deliberate change.
func TestCatalogSchemasGolden(t *testing.T) {
	t.Parallel()
	d, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got bytes.Buffer
	got.WriteString("{\n")
	specs := d.Box().Specs()
	for i, s := range specs {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, s.InputSchema, "  ", "  "); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", s.Name, err)
		}
		name, _ := json.Marshal(s.Name)
		got.WriteString("  " + string(name) + ": " + pretty.String())
		if i < len(specs)-1 {
			got.WriteString(",")
		}
		got.WriteString("\n")
	}
	got.WriteString("}\n")

	golden := filepath.Join("testdata", "schemas.golden.json")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("catalog schemas differ from %s (run with -update if the change is meant):\n%s", golden, firstDiff(string(want), got.String()))
	}
}

// firstDiff shows where two texts part, with a little context.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-120)
	return "want …" + want[from:min(len(want), i+120)] + "…\ngot  …" + got[from:min(len(got), i+120)] + "…"
}
