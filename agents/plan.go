package agents

import (
	"fmt"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons/manifest"
)

// Plan is a crew's plan file (indusr crew run PLAN.toml):
//
//	teammates = ["writer", "tester"]   # profiles of the roster; default: those tasks are assigned to
//	max_rounds = 10                     # default MaxRounds
//
//	[[task]]
//	id = "impl"
//	prompt = "Add a --verbose flag to cmd/tool."
//	assign = "writer"
//
//	[[task]]
//	id = "test"
//	prompt = "Write tests for the --verbose flag."
//	deps = ["impl"]
type Plan struct {
	Teammates []string `toml:"teammates"`
	MaxRounds int      `toml:"max_rounds"`
	Tasks     []Task   `toml:"task"`
}

// ParsePlan parses a plan file; a problem names the file and, where it
// can, the line.
func ParsePlan(file string, data []byte) (Plan, error) {
	var p Plan
	md, err := manifest.Decode(file, "the plan", data, &p)
	if err != nil {
		return Plan{}, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return Plan{}, fmt.Errorf("%s: field %s: unknown field; a plan has teammates, max_rounds and [[task]] tables of id, prompt, deps and assign", file, u[0])
	}
	if len(p.Tasks) == 0 {
		return Plan{}, fmt.Errorf("%s: no [[task]]: a plan lists its tasks as [[task]] tables with an id and a prompt", file)
	}
	if p.MaxRounds < 0 {
		return Plan{}, fmt.Errorf("%s: max_rounds is negative", file)
	}
	for _, t := range p.Tasks {
		if strings.TrimSpace(t.Prompt) == "" {
			return Plan{}, fmt.Errorf("%s: task %q has no prompt", file, t.ID)
		}
	}
	return p, nil
}

// Team picks the plan's teammates from roster: those it names, else
// every profile a task is assigned to, else the whole roster. A name
// not on the roster is an error that lists the roster.
func (p Plan) Team(roster []Profile) ([]Profile, error) {
	names := p.Teammates
	if len(names) == 0 {
		for _, t := range p.Tasks {
			if t.Assign != "" && !slices.Contains(names, t.Assign) {
				names = append(names, t.Assign)
			}
		}
	}
	if len(names) == 0 {
		return roster, nil
	}
	var team []Profile
	for _, n := range names {
		i := slices.IndexFunc(roster, func(q Profile) bool { return q.Name == n })
		if i < 0 {
			var have []string
			for _, q := range roster {
				have = append(have, q.Name)
			}
			return nil, fmt.Errorf("teammate %q is not a profile of the roster (%s)", n, strings.Join(have, ", "))
		}
		team = append(team, roster[i])
	}
	return team, nil
}
