// Package skills reads Agent Skills: folders holding a SKILL.md (YAML
// front matter, then Markdown instructions) and whatever scripts and
// references the instructions point to. [Discover] finds them where
// Claude Code and Codex look, project folders before the user's, the
// first skill of an id winning; the folder's name is the id. Each file is
// checked against the format's rules (every problem a [Problem] with file
// and line) but loaded leniently, as Claude Code loads it: only a file
// that cannot be read as a skill at all is skipped.
//
// The model first sees one line per skill ([Listing], bounded to a share
// of the context window); the instructions are read out only when the
// model calls the [Tool] or the user types /id or mentions $id
// ([Set.Expand]), with the skill's folder named so that its scripts run
// through the ordinary shell tool, under the session's permissions.
//
// Files of a repository are opened beneath it, links followed only while
// they stay inside, regular files only and of bounded size; the user's own
// folders are the user's choice. Front matter is parsed with
// go.yaml.in/yaml/v3 for its node positions, so a problem names its line.
package skills
