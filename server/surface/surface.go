// Package surface is goldtrace's SSH command surface: which commands and
// flags exist over SSH for a key's role, and the local command tree cut
// down to them for each command line a client sends. goldtrace serve hands
// the server an exec function that runs command lines through it (the
// server itself never imports the command tree).
package surface

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
)

// The SSH command surface. Over SSH a command line runs in a command tree
// built for the key's user from Commands: a command exists in it only if
// it is listed here and the user's role may do one of its actions, and of
// its flags only those listed exist. Everything else is an unknown command
// or flag: a usage error, audited, never a fall-through to the local tree.
// A command reads files only from the client's stdin ("-") and writes only
// to the client's stdout; dataset operands are NAME@vN and are never
// opened as files (App.remote makes the commands that accept either a file
// or a version take the version).
//
// To offer a command over SSH, add a line to Commands: its path, the actions that let
// a role run it (app's action × role table decides who), its operands'
// rule and every flag it keeps, with that flag's value rule. A flag that
// names a server path, a URL, a listener or another database is never
// listed (--out, --url, --db, --listen …): leaving it out is what refuses it.
var Commands = map[string]Command{
	"whoami":  {Flags: sshFlags("json")},
	"status":  {Actions: acts(app.ActStatusTotals), Flags: sshFlags("batch", "json")},
	"traces":  {Actions: acts(app.ActTracesRead), Flags: sshFlags("json", "top")},
	"batches": {Actions: acts(app.ActBatchesRead), Flags: sshFlags("json")},

	"datasets":     {Actions: acts(app.ActDatasetRead), operands: plainDatasetNames, Flags: sshFlags("json")},
	"datasets get": {Actions: acts(app.ActDatasetRead), operands: versionRefs, Flags: sshFlags("manifest")},
	"diff":         {Actions: acts(app.ActDatasetRead), operands: versionRefs, Flags: sshFlags("json")},
	"verify":       {Actions: acts(app.ActDatasetRead), operands: versionRefs, Flags: sshFlags("deep", "json")},
	"score": {Actions: acts(app.ActScoreDataset), Flags: sshFlags(
		"allow-missing", "allow-unknown", "by", "failures", "format", "json", "max", "max-drop", "min",
		"min-support", "param-mode", "pred-format", "profile", "weights",
		"gold="+RefOrStdin, "pred="+StdinOnly)},

	"labels export": {Actions: acts(app.ActLabelsReadOwn), Flags: sshFlags("batch", "reviewer")},
	"labels import": {Actions: acts(app.ActLabelsImport), operands: stdinOperands, Flags: sshFlags("for-others", "json", "rationale-optional", "skip-invalid")},

	// A reviewer lists their own queue, a lead every item (app.Items
	// decides what each sees); names and states only.
	"items": {Actions: acts(app.ActQueueRead, app.ActStatusDetails), Flags: sshFlags("batch", "json", "limit", "reviewer", "state", "tool")},

	// drift reads a stored version (or the client's stdin) and the client's
	// catalogue from stdin; both from stdin is refused by the command.
	"drift": {Actions: acts(app.ActDatasetRead), Flags: sshFlags("format", "json", "gold="+RefOrStdin, "tools="+StdinOnly)},

	"import": {Actions: acts(app.ActImport), operands: stdinOperands, Flags: sshFlags("format", "json", "skip-invalid")},
	"sample": {Actions: acts(app.ActSample), Flags: sshFlags(
		"alloc", "batch", "by", "dry-run", "exclude-sampled", "format", "json", "min-per-stratum", "n",
		"per-item", "reviewers", "seed", "since", "skip-invalid", "turns", "until", "where", "from="+StdinOnly,
		// --stale names a stored version and reads the catalogue from
		// stdin (a lead: app decides); --runs names files and stays out,
		// and so do --judge and every --judge-* flag (a model called with
		// the server's API key, a URL, a template file on the server).
		"stale="+RefOrStdin, "tools="+StdinOnly)},
	// The files go into the server's export directory (serve
	// --export-dir; beside a SQLite database by default), never where a
	// client says; the version is in the database, where datasets get
	// fetches it. A new version only (re-writing a stored version's files
	// is for the server's own shell).
	"export": {Actions: acts(app.ActExport), operands: newDatasetName,
		Flags:   sshFlags("allow-partial", "batch", "force", "format", "json", "message", "where"),
		presets: map[string]string{"out": exportDirPreset}},
	"resolve": {Actions: acts(app.ActAdjudicate), Flags: sshFlags(
		"accept", "both", "force", "json", "pick", "propose-guide", "reason", "rule", "send-back", "to", "label="+StdinOnly)},

	"guide show": {Actions: acts(app.ActGuideRead), Flags: sshFlags("raw", "version")},
	"guide log":  {Actions: acts(app.ActGuideRead), Flags: sshFlags("json")},
	"guide set":  {Actions: acts(app.ActGuideSet), operands: stdinOperands},

	"settings":     {Actions: acts(app.ActSettingsRead), Flags: sshFlags("json")},
	"settings set": {Actions: acts(app.ActSettingsSet)},

	"users list":       {Actions: acts(app.ActUsersRead), Flags: sshFlags("json")},
	"users add":        {Actions: acts(app.ActUsersManage), Flags: sshFlags("role", "key="+KeyText)},
	"users remove":     {Actions: acts(app.ActUsersManage)},
	"users key add":    {Actions: acts(app.ActUsersManage), operands: nameThenKey},
	"users key remove": {Actions: acts(app.ActUsersManage), operands: nameThenKey},

	"audit": {Actions: acts(app.ActAuditRead), Flags: sshFlags("action", "actor", "json", "last")},
	"check": {Actions: acts(app.ActMaintain), Flags: sshFlags("json")},
}

// Reports are the commands of the surface that read or write in bulk:
// the server admits them through its report gate (a few at once, and a
// bounded share of its time while reviewers type: server.Limits), so that
// clients running them in a loop cannot starve the reviewers' screens. The
// others answer from a few rows (whoami, settings, users, guide, resolve)
// and run at once.
var Reports = map[string]bool{
	"status": true, "traces": true, "batches": true, "items": true,
	"datasets get": true, "diff": true, "verify": true, "score": true, "drift": true,
	"labels export": true, "labels import": true, "import": true, "sample": true, "export": true,
	"audit": true, "check": true,
}

// IsReport reports whether a command line names one of Reports.
func (s *Surface) IsReport(args []string) bool { return Reports[s.localPath(args)] }

// Not over SSH, and why (what the refusal says). Commands absent from both
// maps are "not available over SSH".
var sshWhyNot = map[string]string{
	"label":      "opens a screen: over SSH, connect without a command (ssh -p PORT HOST) to get your screen",
	"adjudicate": "opens a screen: over SSH, connect without a command (ssh -p PORT HOST) to get your screen",
	"dashboard":  "opens a screen: over SSH, connect without a command (ssh -p PORT HOST) to get your screen",
	"assign":     "is not available over SSH: a lead runs it on the server",
}

// Flags left out of the surface that users try, and what to do instead.
var sshFlagWhyNot = map[string]string{
	"db":        "is not accepted over SSH: the server has one database",
	"read-only": "is not accepted over SSH: the server has one database",
	"out":       "is not available over SSH (it names a file on the server): output goes to your stdout",
	"manifest":  "is not available over SSH (it names a file on the server)",
	"baseline":  "is not available over SSH (it names a file on the server)",
	"runs":      "is not available over SSH (it names files on the server): sample --by disagreement on the server",
	"s3-endpoint": "is not available over SSH (the server would connect to it with its own credentials): " +
		"sample from object storage on the server",
	"judge":          "is not available over SSH (it would call a model with the server's API key): run score --judge on your own machine against datasets get",
	"judge-url":      "is not available over SSH (the server would connect to it with its own API key)",
	"judge-template": "is not available over SSH (it names a file on the server)",
}

// Command is one command of the SSH surface.
type Command struct {
	// Actions: the command exists for a key whose role may do one of
	// them (none: for every key).
	Actions []app.Action
	// operands checks the positional arguments (nil: names and ids only;
	// the command's own Args rule still applies).
	operands func(args []string) error
	// Flags are the flags kept, by name, each with its value rule.
	Flags map[string]string
	// presets are flag values the server sets, not the client
	// (exportDirPreset: the server's export directory).
	presets map[string]string
}

// exportDirPreset stands for the server's export directory in presets.
const exportDirPreset = "\x00export-dir"

// Value rules of a kept flag: any value (names, numbers, choices — none
// names anything on the server), only "-" (a file: the client's stdin), a
// dataset version or "-", an authorized_keys line or "-".
const (
	AnyValue   = ""
	StdinOnly  = "stdin"
	RefOrStdin = "ref"
	KeyText    = "key"
)

func acts(a ...app.Action) []app.Action { return a }

// sshFlags reads "name" (any value) and "name=rule" entries.
func sshFlags(entries ...string) map[string]string {
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		name, rule, _ := strings.Cut(e, "=")
		m[name] = rule
	}
	return m
}

// UsageError is a command line the SSH surface refuses: unknown command or
// flag, a flag value or operand it does not take. The server audits it.
type UsageError struct{ err error }

func (e *UsageError) Error() string { return e.err.Error() }
func (e *UsageError) Unwrap() error { return e.err }

func usage(format string, args ...any) error {
	return &UsageError{err: fmt.Errorf(format, args...)}
}

// Surface runs command lines from SSH clients in trees cut down from the
// local command tree; it looks command lines up in one local tree, built
// once and never run.
type Surface struct {
	newLocal func() *cobra.Command
	mu       sync.Mutex
	local    *cobra.Command
}

// New is the surface over the local command tree newLocal builds (for
// lookups only: it is never run).
func New(newLocal func() *cobra.Command) *Surface { return &Surface{newLocal: newLocal} }

// tree cuts root, a fresh local tree whose commands run on the server's
// database, down to what Commands lists for actor's role, with only the
// listed flags; exportDir is where export writes its files ("": the server
// keeps none, and export is refused).
//
// target is the path of the command the line runs: only the commands on
// the way to it get their flags cut down (the others are never parsed, and
// help lists them by name), which spares rebuilding every command's flags
// for each command line. "" or "help" (a line that asks for help, which
// may print any command's flags) cuts them all.
func (s *Surface) tree(root *cobra.Command, actor app.Actor, exportDir, target string) *cobra.Command {
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{err: s.flagError(c, actor, err)}
	})
	keepFor(exportDir, actor, root, "", target)
	root.InitDefaultHelpCmd()
	return root
}

// Run runs one command line an SSH client sent, as actor, in root (a fresh
// local tree on the server's database) cut down to actor's surface, with
// export writing into exportDir ("" refuses export). A line that names no
// command of that tree is refused before anything runs, with a
// *UsageError.
func (s *Surface) Run(ctx context.Context, root *cobra.Command, actor app.Actor, exportDir string, args []string) error {
	target := s.localPath(args)
	root = s.tree(root, actor, exportDir, target)
	cmd, _, err := root.Find(args)
	if err != nil || CommandPath(cmd) != target {
		// Not a command of this tree, or a shorter one than the local
		// tree finds (settings set → settings): refused as such.
		return s.refusal(actor, args)
	}
	if !cmd.Runnable() && slices.ContainsFunc(args, func(arg string) bool { return arg == "--" }) {
		return usage("%s takes a command, not operands: ssh HOST -- %s --help lists them", CommandPath(cmd), CommandPath(cmd))
	}
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// keepFor prunes c's subtree for actor and reports whether c stays; of the
// commands that stay, those on the way to target get their flags cut down
// (all of them when target is "" or "help").
func keepFor(exportDir string, actor app.Actor, c *cobra.Command, path, target string) bool {
	for _, sub := range c.Commands() {
		p := strings.TrimSpace(path + " " + sub.Name())
		if !keepFor(exportDir, actor, sub, p, target) {
			c.RemoveCommand(sub)
		}
	}
	spec, listed := Commands[path]
	if path != "" && !listed && !c.HasSubCommands() {
		return false
	}
	if listed && !spec.openTo(actor) {
		if !c.HasSubCommands() {
			return false
		}
		c.Run, c.RunE = nil, nil // a group that is a command too: only its subcommands
	}
	if onPath := target == "" || target == "help" || path == "" || path == target || strings.HasPrefix(target, path+" "); !onPath {
		return !listed || spec.openTo(actor) || c.HasSubCommands()
	}
	old := c.LocalFlags()
	c.ResetFlags()
	c.Example = "" // the local examples name files and --as
	c.Flags().AddFlag(&pflag.Flag{Name: "help", Shorthand: "h", Usage: "help for " + c.Name(),
		Value: new(helpValue), NoOptDefVal: "true"})
	if !listed || !spec.openTo(actor) {
		return path == "" || c.HasSubCommands()
	}
	old.VisitAll(func(f *pflag.Flag) {
		if v, ok := spec.presets[f.Name]; ok {
			if v == exportDirPreset {
				if exportDir == "" {
					c.RunE = func(*cobra.Command, []string) error {
						return usage("%s over SSH: this server keeps no export files (a PostgreSQL project has no directory beside it); a lead exports from a shell, or the server is started with serve --export-dir DIR", path)
					}
					return
				}
				v = exportDir
			}
			_ = f.Value.Set(v)
			return
		}
		rule, ok := spec.Flags[f.Name]
		if !ok {
			return
		}
		kept := *f
		if rule != AnyValue {
			kept.Value = &ruledValue{Value: f.Value, flag: f.Name, rule: rule}
		}
		c.Flags().AddFlag(&kept)
	})
	if args := c.Args; spec.operands != nil || args != nil {
		c.Args = func(cmd *cobra.Command, operands []string) error {
			if spec.operands != nil {
				if err := spec.operands(operands); err != nil {
					return &UsageError{err: err}
				}
			}
			if args != nil {
				if err := args(cmd, operands); err != nil {
					return &UsageError{err: err}
				}
			}
			return nil
		}
	}
	return true
}

// openTo: whether actor's role may do one of the command's actions.
func (s Command) openTo(actor app.Actor) bool {
	if len(s.Actions) == 0 {
		return true
	}
	return slices.ContainsFunc(s.Actions, func(act app.Action) bool { return app.Authorize(actor, act) == nil })
}

// CommandPath is a command's path below the root ("labels import").
func CommandPath(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " ")
}

// localPath is the path of the command args name in the local tree ("" for
// none or the root).
func (s *Surface) localPath(args []string) string {
	var path string
	s.withLocalTree(func(local *cobra.Command) {
		if cmd, _, err := local.Find(args); err == nil {
			path = CommandPath(cmd)
		}
	})
	return path
}

// withLocalTree calls fn with the local tree, one caller at a time (cobra
// completes a command's flag set on first use).
func (s *Surface) withLocalTree(fn func(root *cobra.Command)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.local == nil {
		s.local = s.newLocal()
		s.local.InitDefaultHelpCmd()
	}
	fn(s.local)
}

// refusal says why a command line names no command of actor's tree: an
// app refusal for a command the role may not run, "not available over SSH"
// for one that only runs on the server, "unknown command" otherwise.
func (s *Surface) refusal(actor app.Actor, args []string) error {
	path := s.localPath(args)
	if path == "" {
		return usage("unknown command %q: ssh HOST -- help lists the commands your key can run", firstWord(args))
	}
	if spec, ok := Commands[path]; ok && len(spec.Actions) > 0 {
		return &UsageError{err: &app.DeniedError{Actor: actor, Action: spec.Actions[0]}}
	}
	if why, ok := sshWhyNot[path]; ok {
		return usage("%s %s", path, why)
	}
	return usage("%s is not available over SSH (it works on the server's own files or network); run it on the server", path)
}

func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

// flagError rewords pflag's error for a flag the surface left out.
func (s *Surface) flagError(c *cobra.Command, actor app.Actor, err error) error {
	msg := err.Error()
	if _, rule, ok := strings.Cut(msg, " flag: "); ok && strings.HasPrefix(msg, "invalid argument ") && strings.Contains(rule, "over SSH") {
		return errors.New(rule) // a kept flag's value rule: its own words
	}
	name := ""
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	} else if strings.HasPrefix(msg, "unknown shorthand flag: ") {
		if i := strings.Index(msg, "'"); i >= 0 && i+2 < len(msg) {
			short := msg[i+1 : i+2]
			if f := s.localFlagByShorthand(c, short); f != "" {
				name = f
			}
		}
	}
	if name == "as" {
		return fmt.Errorf("--as is not accepted over SSH: you are %s", actor)
	}
	if why, ok := sshFlagWhyNot[name]; ok {
		return fmt.Errorf("--%s %s", name, why)
	}
	if name != "" {
		return fmt.Errorf("--%s is not available over SSH for %s", name, strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" "))
	}
	return err
}

// localFlagByShorthand finds the long name of a shorthand in the local
// command of the same path, for the message.
func (s *Surface) localFlagByShorthand(c *cobra.Command, short string) string {
	var name string
	s.withLocalTree(func(local *cobra.Command) {
		lc, _, err := local.Find(strings.Fields(CommandPath(c)))
		if err != nil {
			return
		}
		if f := lc.Flags().ShorthandLookup(short); f != nil {
			name = f.Name
		}
	})
	return name
}

// helpValue is the SSH tree's --help: it only ever asks for help. Any
// value other than a true one (--help=false, -h=0) is a usage error, so no
// spelling of it turns anything off.
type helpValue bool

func (h *helpValue) String() string { return strconv.FormatBool(bool(*h)) }
func (h *helpValue) Type() string   { return "bool" }
func (h *helpValue) IsBoolFlag() bool {
	return true
}

func (h *helpValue) Set(s string) error {
	if v, err := strconv.ParseBool(s); err != nil || !v {
		return errors.New("--help takes no value")
	}
	*h = true
	return nil
}

// ruledValue is a kept flag whose value must follow a rule.
type ruledValue struct {
	pflag.Value
	flag, rule string
}

func (v *ruledValue) Set(s string) error {
	switch v.rule {
	case StdinOnly:
		if s != "-" {
			return fmt.Errorf("--%s %s: over SSH a command reads only your stdin: give --%s - and redirect the file", v.flag, s, v.flag)
		}
	case RefOrStdin:
		if s != "-" {
			if err := versionRef(s); err != nil {
				return fmt.Errorf("--%s %w", v.flag, err)
			}
		}
	case KeyText:
		if err := keyArgument(s); err != nil {
			return fmt.Errorf("--%s %w", v.flag, err)
		}
	}
	return v.Value.Set(s)
}

// versionRef: s is NAME@vN.
func versionRef(s string) error {
	if _, ok, err := dataset.ParseRef(s); !ok || err != nil {
		return fmt.Errorf("%s: over SSH give a dataset version (NAME@vN) or - for your stdin", s)
	}
	return nil
}

// keyArgument: an authorized_keys line, a fingerprint, or "-" (the key on
// stdin); a single word is a file name, which over SSH would be the
// server's.
func keyArgument(s string) error {
	if s == "-" || strings.HasPrefix(s, "SHA256:") || strings.ContainsAny(strings.TrimSpace(s), " \t") {
		return nil
	}
	return fmt.Errorf("%s: over SSH give - and the key on stdin (ssh HOST -- users key add NAME - < key.pub), not a file name", s)
}

func stdinOperands(args []string) error {
	for _, a := range args {
		if a != "-" {
			return fmt.Errorf("%s: over SSH a command reads only your stdin: give - and redirect the file (ssh HOST -- … - < FILE)", a)
		}
	}
	return nil
}

func versionRefs(args []string) error {
	for _, a := range args {
		if err := versionRef(a); err != nil {
			return err
		}
	}
	return nil
}

func plainDatasetNames(args []string) error {
	for _, a := range args {
		if err := dataset.ValidName(a); err != nil {
			return err
		}
	}
	return nil
}

// newDatasetName: export NAME writes the next version; export NAME@vN
// re-writes a stored version's files, which over SSH datasets get gives.
func newDatasetName(args []string) error {
	for _, a := range args {
		if strings.Contains(a, "@") {
			return fmt.Errorf("export %s writes files on the server: over SSH fetch a version with datasets get %s", a, a)
		}
	}
	return plainDatasetNames(args)
}

// nameThenKey: users key add|remove NAME KEY, KEY a line, a fingerprint or -.
func nameThenKey(args []string) error {
	if len(args) > 1 {
		return keyArgument(args[1])
	}
	return nil
}
