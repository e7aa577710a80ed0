package walk

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/workspace"
)

// Names of the files that carry ignore rules, and the version-control
// directories the walk never enters.
const (
	gitIgnoreFile = ".gitignore"
	dotIgnoreFile = ".ignore"
	gitDir        = ".git"
)

// vcsDirs are skipped at any depth even though hidden entries are
// searched: their contents are a tool's database, not the project. The
// list is the one agents' search tools agree on (git, Subversion,
// Mercurial, Bazaar, Jujutsu, Sapling).
var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// skipDir reports whether the walk leaves out an entry of this name: a
// version-control directory, or induscode's own state folder, which
// holds checkpoints and logs (copies of the project, output of commands)
// whether or not the workspace is a git repository whose ignore rules
// would leave it out.
func skipDir(name string) bool { return vcsDirs[name] || name == workspace.StateDir }

// rulesNode is the ignore state of one directory: the rule sets it adds
// and a link to its parent's. A directory without ignore files shares its
// parent's node.
//
// Precedence follows ripgrep (and so git): for each kind of file the
// nearest directory with a matching rule decides; .ignore beats
// .gitignore, which beats .git/info/exclude. Git rules apply only inside a
// repository and stop at the repository's root, so a nested repository
// does not inherit its parent's .gitignore.
type rulesNode struct {
	parent  *rulesNode
	dot     *Rules // .ignore
	git     *Rules // .gitignore
	exclude *Rules // .git/info/exclude of a repository root
	gitRoot bool   // this directory holds .git
	inRepo  bool   // this directory or an ancestor holds .git
}

// ignored reports whether the entry at abs (base name name) is excluded.
func (n *rulesNode) ignored(abs, name string, isDir bool) bool {
	var vDot, vGit, vExclude verdict
	sawRoot := false
	for ; n != nil; n = n.parent {
		if vDot == noVerdict && n.dot != nil {
			vDot = n.dot.match(relTo(n.dot.dir, abs), name, isDir)
		}
		if !sawRoot {
			if vGit == noVerdict && n.git != nil {
				vGit = n.git.match(relTo(n.git.dir, abs), name, isDir)
			}
			if vExclude == noVerdict && n.exclude != nil {
				vExclude = n.exclude.match(relTo(n.exclude.dir, abs), name, isDir)
			}
		}
		sawRoot = sawRoot || n.gitRoot
	}
	for _, v := range [...]verdict{vDot, vGit, vExclude} {
		if v != noVerdict {
			return v == ignoreIt
		}
	}
	return false
}

// relTo returns abs relative to dir, slash-separated; abs must lie below
// dir, which the walk guarantees.
func relTo(dir, abs string) string {
	if len(abs) <= len(dir) {
		return ""
	}
	rel := abs[len(dir):]
	if rel[0] == filepath.Separator {
		rel = rel[1:]
	}
	return filepath.ToSlash(rel)
}

// childNode returns the node for directory dir whose entries include the
// names in has (.gitignore, .ignore, .git). It reads the ignore files
// present and returns parent itself when dir adds nothing.
func childNode(parent *rulesNode, dir string, hasGit, hasGitIgnore, hasDotIgnore bool) *rulesNode {
	inRepo := hasGit || (parent != nil && parent.inRepo)
	var dot, git, exclude *Rules
	if hasDotIgnore {
		dot = readRules(dir, filepath.Join(dir, dotIgnoreFile))
	}
	if inRepo && hasGitIgnore {
		git = readRules(dir, filepath.Join(dir, gitIgnoreFile))
	}
	if hasGit {
		if p := excludeFile(dir); p != "" {
			exclude = readRules(dir, p)
		}
	}
	if !hasGit && dot == nil && git == nil {
		return parent
	}
	return &rulesNode{parent: parent, dot: dot, git: git, exclude: exclude, gitRoot: hasGit, inRepo: inRepo}
}

// readRules reads and parses one ignore file; a file that cannot be read
// contributes no rules (git and ripgrep behave the same way).
func readRules(dir, path string) *Rules {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	return parseRules(dir, b)
}

// excludeFile returns the path of the info/exclude file of the repository
// whose root is dir. A .git file (a worktree or submodule) points at the
// real git directory; a worktree's exclude file lives in the common one.
func excludeFile(dir string) string {
	dotGit := filepath.Join(dir, gitDir)
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	gd := dotGit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(b), "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return ""
		}
		gd = strings.TrimSpace(target)
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(dir, gd)
		}
		if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gd, common)
			}
			gd = common
		}
	}
	return filepath.Join(gd, "info", "exclude")
}

// ancestorRules builds the rule chain that applies to the entries of root
// from the directories above it: when root lies inside a repository, the
// .gitignore and .ignore files from the repository's root down to root's
// parent, and the repository's exclude file. Outside a repository nothing
// above root applies.
func ancestorRules(root string) *rulesNode {
	var chain []string // root's parent first, up to the repository root
	found := false
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if exists(filepath.Join(d, gitDir)) {
			found = true
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if !found || filepath.Dir(root) == root {
		return nil
	}
	var n *rulesNode
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		n = childNode(n, d, i == len(chain)-1,
			exists(filepath.Join(d, gitIgnoreFile)), exists(filepath.Join(d, dotIgnoreFile)))
	}
	return n
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
