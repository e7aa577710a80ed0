package walk

import (
	"fmt"
	"slices"
	"strings"
)

// fileTypes is grep's type table: a name and the globs (matched against a
// file's base name) of that kind of file. The names and most globs follow
// ripgrep's built-in table so that `type: "go"` means what `rg -t go`
// means; a few newer extensions (.mjs, .cjs, .mts, .cts, .pyi) are added.
var fileTypes = map[string][]string{
	"asm":       {"*.S", "*.asm", "*.s"},
	"c":         {"*.[chH]", "*.[chH].in", "*.cats"},
	"clojure":   {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
	"cmake":     {"*.cmake", "CMakeLists.txt"},
	"config":    {"*.cfg", "*.conf", "*.config", "*.ini"},
	"cpp":       {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
	"cs":        {"*.cs"},
	"css":       {"*.css", "*.scss"},
	"csv":       {"*.csv"},
	"dart":      {"*.dart"},
	"docker":    {"*Dockerfile*"},
	"elixir":    {"*.eex", "*.ex", "*.exs"},
	"erlang":    {"*.erl", "*.hrl"},
	"go":        {"*.go"},
	"graphql":   {"*.graphql", "*.graphqls"},
	"haskell":   {"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"},
	"html":      {"*.ejs", "*.htm", "*.html"},
	"java":      {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":        {"*.js", "*.jsx", "*.vue", "*.mjs", "*.cjs"},
	"json":      {"*.json", "composer.lock"},
	"jsonl":     {"*.jsonl"},
	"julia":     {"*.jl"},
	"kotlin":    {"*.kt", "*.kts"},
	"lua":       {"*.lua"},
	"make":      {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"md":        {"*.markdown", "*.md", "*.mdown", "*.mdx", "*.mkdn"},
	"nix":       {"*.nix"},
	"ocaml":     {"*.ml", "*.mli", "*.mll", "*.mly"},
	"perl":      {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php":       {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"protobuf":  {"*.proto"},
	"py":        {"*.py", "*.pyi"},
	"r":         {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"ruby":      {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
	"rust":      {"*.rs"},
	"scala":     {"*.sbt", "*.scala"},
	"sh":        {"*.bash", "*.bashrc", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bash_profile", ".bashrc", ".profile", ".zshrc"},
	"sql":       {"*.psql", "*.sql"},
	"svelte":    {"*.svelte"},
	"swift":     {"*.swift"},
	"terraform": {"*.tf", "*.tfvars"},
	"tex":       {"*.bib", "*.cls", "*.sty", "*.tex"},
	"toml":      {"*.toml", "Cargo.lock"},
	"ts":        {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"txt":       {"*.txt"},
	"xml":       {"*.dtd", "*.xhtml", "*.xml", "*.xsd", "*.xsl", "*.xslt"},
	"yaml":      {"*.yaml", "*.yml"},
	"zig":       {"*.zig"},
}

// typeAliases maps the names models reach for to table names.
var typeAliases = map[string]string{
	"golang": "go", "python": "py", "javascript": "js", "typescript": "ts", "rs": "rust",
	"c++": "cpp", "csharp": "cs", "yml": "yaml", "markdown": "md", "shell": "sh", "bash": "sh",
	"rb": "ruby", "kt": "kotlin", "proto": "protobuf", "tf": "terraform", "text": "txt",
}

// TypeNames lists the type table's names in order.
func TypeNames() []string {
	names := make([]string, 0, len(fileTypes))
	for n := range fileTypes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// typeMatcher builds the rule set for a type list such as "go" or
// "ts,js": a file is kept when its base name matches a glob of any listed
// type.
func typeMatcher(spec string) (*Rules, error) {
	var lines []string
	for _, name := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
		key := strings.ToLower(name)
		if a, ok := typeAliases[key]; ok {
			key = a
		}
		globs, ok := fileTypes[key]
		if !ok {
			return nil, fmt.Errorf("unknown file type %q; known types: %s (or use glob, e.g. \"*.ext\")", name, strings.Join(TypeNames(), ", "))
		}
		lines = append(lines, globs...)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return parseRules("", []byte(strings.Join(lines, "\n"))), nil
}
