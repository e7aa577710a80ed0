package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/skills"
)

func newSkillsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "Agent Skills: the SKILL.md folders the agent finds, and their problems",
		Long: "A skill is a folder holding SKILL.md: YAML front matter (name, description) and instructions, " +
			"with the scripts and references they point to. The agent reads skills from the project's .claude/skills, " +
			".agents/skills (in each folder from the repository's root down to the working folder) and .indus/skills, " +
			"then the user's ~/.claude/skills, ~/.agents/skills and $XDG_CONFIG_HOME/indusvx/skills; the first skill " +
			"of a folder name wins.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the skills found for the workspace, how each can be used, and every problem with file and line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			set := skills.Discover(skills.Options{Dir: dir})
			out := cmd.OutOrStdout()
			if opts.JSON {
				return json.NewEncoder(out).Encode(skillRows(set))
			}
			if len(set.Skills) == 0 {
				fmt.Fprintln(out, "no skills found")
			} else {
				w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
				fmt.Fprintln(w, "SKILL\tSCOPE\tUSED BY\tDESCRIPTION")
				for _, s := range set.Skills {
					id := s.ID
					if s.Name != "" && s.Name != s.ID {
						id += " (" + s.Name + ")"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", id, s.Scope, usedBy(s), clip(s.Description, 72))
				}
				if err := w.Flush(); err != nil {
					return err
				}
			}
			printProblems(out, dir, set.Problems)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "check [SKILL_FOLDER...]",
		Short: "Check skills against the format's rules; exit 1 when one breaks them",
		Long: "With no folder, checks every skill found for the workspace; with folders (or their SKILL.md files), " +
			"checks those. The rules are the Agent Skills reference validator's. A warning marks a file the agent still " +
			"loads, as Claude Code would, but that another agent may refuse; an error marks one that is not loaded.",
		RunE: func(cmd *cobra.Command, args []string) error {
			var set *skills.Set
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				set = skills.Discover(skills.Options{Dir: dir})
			} else {
				set = &skills.Set{}
				for _, a := range args {
					s, probs := skills.LoadDir(a)
					if s != nil {
						set.Skills = append(set.Skills, s)
					}
					set.Problems = append(set.Problems, probs...)
				}
			}
			out := cmd.OutOrStdout()
			printProblems(out, dir, set.Problems)
			bad := set.Count(skills.Warning) + set.Count(skills.Error)
			fmt.Fprintf(out, "%d skills loaded, %d errors, %d warnings\n", len(set.Skills), set.Count(skills.Error), set.Count(skills.Warning))
			if bad > 0 {
				return &exitCode{1}
			}
			return nil
		},
	})
	return cmd
}

// usedBy says who can start a skill: the model (Skill tool), the user
// (/id), or both.
func usedBy(s *skills.Skill) string {
	switch {
	case s.ModelInvocable() && s.UserInvocable:
		return "model, /" + s.ID
	case s.UserInvocable:
		return "/" + s.ID + " only"
	case s.ModelInvocable():
		return "model only"
	}
	return "nobody"
}

// printProblems prints one problem a line, the file named relative to
// dir when it lies inside.
func printProblems(w io.Writer, dir string, probs []skills.Problem) {
	for _, p := range probs {
		if rel, err := filepath.Rel(dir, p.File); err == nil && !strings.HasPrefix(rel, "..") {
			p.File = rel
		}
		fmt.Fprintln(w, p)
	}
}

type skillRow struct {
	ID            string   `json:"id"`
	Name          string   `json:"name,omitempty"`
	Description   string   `json:"description"`
	Scope         string   `json:"scope"`
	Dir           string   `json:"dir"`
	Model         bool     `json:"model_invocable"`
	User          bool     `json:"user_invocable"`
	AllowedTools  []string `json:"allowed_tools,omitempty"`
	License       string   `json:"license,omitempty"`
	Compatibility string   `json:"compatibility,omitempty"`
}

type problemRow struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func skillRows(set *skills.Set) map[string]any {
	rows := []skillRow{}
	for _, s := range set.Skills {
		rows = append(rows, skillRow{ID: s.ID, Name: s.Name, Description: s.Description, Scope: string(s.Scope), Dir: s.Dir,
			Model: s.ModelInvocable(), User: s.UserInvocable, AllowedTools: s.AllowedTools, License: s.License, Compatibility: s.Compatibility})
	}
	probs := []problemRow{}
	for _, p := range set.Problems {
		probs = append(probs, problemRow{p.File, p.Line, p.Severity.String(), p.Message})
	}
	return map[string]any{"skills": rows, "problems": probs}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n-1]), " ") + "…"
	}
	return s
}
