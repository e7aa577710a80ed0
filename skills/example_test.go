package skills_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/skills"
)

// Find the skills of a project, show the model its listing, and expand a
// prompt the user typed.
func Example() {
	dir, _ := os.MkdirTemp("", "skills-example")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".claude", "skills", "greet"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "skills", "greet", "SKILL.md"), []byte(
		"---\nname: greet\ndescription: Greets someone by name. Use when asked to say hello.\n---\nSay hello to $0.\n"), 0o644)

	set := skills.Discover(skills.Options{Dir: dir, NoUser: true})
	listing, _ := skills.Listing(set.ForModel(nil), skills.Budget(200_000))
	fmt.Print(listing)

	sk, _ := set.Lookup("greet")
	fmt.Println(sk.Instructions("Ada", "") == "Base directory for this skill: "+sk.Dir+"\n\nSay hello to Ada.")
	_, used := set.Expand("/greet Ada", "session-1")
	fmt.Println(used)
	// Output:
	// The following skills are available for use with the Skill tool. When a skill below covers the task, call Skill with its id first and follow what it loads:
	//
	// - greet: Greets someone by name. Use when asked to say hello.
	// true
	// [greet]
}
