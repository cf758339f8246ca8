package surface

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
)

// tinyTree is a local tree with a listed command (status: --batch and
// --json kept, --out not), an unlisted one (backup) and a group whose
// subcommand needs a lead (users add).
func tinyTree(ran *[]string) *cobra.Command {
	root := &cobra.Command{Use: "goldtrace", SilenceErrors: true, SilenceUsage: true}
	status := &cobra.Command{Use: "status", RunE: func(cmd *cobra.Command, _ []string) error {
		b, _ := cmd.Flags().GetString("batch")
		*ran = append(*ran, "status "+b)
		return nil
	}}
	status.Flags().String("batch", "", "")
	status.Flags().Bool("json", false, "")
	status.Flags().String("out", "", "a file")
	backup := &cobra.Command{Use: "backup", RunE: func(*cobra.Command, []string) error { *ran = append(*ran, "backup"); return nil }}
	users := &cobra.Command{Use: "users"}
	add := &cobra.Command{Use: "add", RunE: func(*cobra.Command, []string) error { *ran = append(*ran, "users add"); return nil }}
	add.Flags().String("role", "", "")
	users.AddCommand(add)
	root.AddCommand(status, backup, users)
	return root
}

func TestRunKeepsOnlyTheSurface(t *testing.T) {
	var ran []string
	s := New(func() *cobra.Command { var none []string; return tinyTree(&none) })
	reviewer := app.Actor{Name: "alice", Role: app.RoleReviewer, Source: app.SourceSSH}
	run := func(actor app.Actor, args ...string) error {
		return s.Run(app.WithActor(context.Background(), actor), tinyTree(&ran), actor, "/srv", args)
	}
	if err := run(reviewer, "status", "--batch", "b1"); err != nil || len(ran) != 1 || ran[0] != "status b1" {
		t.Fatalf("status --batch: %v %v", err, ran)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--out", "x"}, "--out is not available over SSH"},
		{[]string{"status", "--as", "carol"}, "--as is not accepted over SSH"},
		{[]string{"backup"}, "backup is not available over SSH"},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"users", "add", "bob"}, "only a lead may"}, // a reviewer may not manage users
		{[]string{"status", "--help=false"}, "--help takes no value"},
	} {
		err := run(reviewer, tc.args...)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	if len(ran) != 1 {
		t.Errorf("a refused line ran something: %v", ran)
	}
}

func TestValueRules(t *testing.T) {
	for _, tc := range []struct {
		rule, value string
		ok          bool
	}{
		{StdinOnly, "-", true},
		{StdinOnly, "/etc/passwd", false},
		{RefOrStdin, "support@v3", true},
		{RefOrStdin, "-", true},
		{RefOrStdin, "support-v3.jsonl", false},
		{KeyText, "-", true},
		{KeyText, "SHA256:abc", true},
		{KeyText, "ssh-ed25519 AAAAC3Nz bob@host", true},
		{KeyText, "bob.pub", false},
	} {
		var got string
		v := &ruledValue{Value: stringValue{&got}, flag: "f", rule: tc.rule}
		if err := v.Set(tc.value); (err == nil) != tc.ok {
			t.Errorf("%s %q: err %v, want ok %v", tc.rule, tc.value, err, tc.ok)
		}
	}
	if err := newDatasetName([]string{"support@v3"}); err == nil {
		t.Error("export NAME@vN over SSH: not refused")
	}
	if err := stdinOperands([]string{"-", "traces.jsonl"}); err == nil {
		t.Error("a file operand over SSH: not refused")
	}
}

type stringValue struct{ p *string }

func (s stringValue) String() string     { return *s.p }
func (s stringValue) Set(v string) error { *s.p = v; return nil }
func (s stringValue) Type() string       { return "string" }

// TestExportWritesIntoTheServersDirectory: export over SSH writes into the
// directory the server was given, whatever --out the client types, and is
// refused in one line on a server that keeps no files (a PostgreSQL
// project started without serve --export-dir).
func TestExportWritesIntoTheServersDirectory(t *testing.T) {
	tree := func(out *string) *cobra.Command {
		root := &cobra.Command{Use: "goldtrace", SilenceErrors: true, SilenceUsage: true}
		var dir string // bound as the real command binds --out
		export := &cobra.Command{Use: "export NAME", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error {
			*out = dir
			return nil
		}}
		export.Flags().StringVar(&dir, "out", ".", "")
		export.Flags().Bool("json", false, "")
		root.AddCommand(export)
		return root
	}
	s := New(func() *cobra.Command { var none string; return tree(&none) })
	lead := app.Actor{Name: "carol", Role: app.RoleLead, Source: app.SourceSSH}
	run := func(dir string, args ...string) (string, error) {
		var out string
		err := s.Run(app.WithActor(context.Background(), lead), tree(&out), lead, dir, args)
		return out, err
	}
	if out, err := run("/srv/exports", "export", "support"); err != nil || out != "/srv/exports" {
		t.Fatalf("export into the server's directory: out %q, %v", out, err)
	}
	if _, err := run("/srv/exports", "export", "support", "--out", "/etc"); err == nil || !strings.Contains(err.Error(), "--out is not available over SSH") {
		t.Errorf("export --out over SSH: %v", err)
	}
	out, err := run("", "export", "support")
	var ue *UsageError
	if !errors.As(err, &ue) || out != "" || !strings.Contains(err.Error(), "serve --export-dir DIR") || strings.Contains(err.Error(), "\n") {
		t.Errorf("export on a server without an export directory: out %q, %v", out, err)
	}
}

// TestReportsAreSurfaceCommands: every report is a command of the surface,
// and a command line is told a report whatever its flags' place.
func TestReportsAreSurfaceCommands(t *testing.T) {
	for path := range Reports {
		if _, ok := Commands[path]; !ok {
			t.Errorf("report %q is not a command of the SSH surface", path)
		}
	}
	var none []string
	s := New(func() *cobra.Command { return tinyTree(&none) })
	for args, want := range map[string]bool{
		"status": true, "status --json": true, "status --batch b1": true,
		"users add bob": false, "backup": false, "nonsense": false, "": false,
	} {
		if got := s.IsReport(strings.Fields(args)); got != want {
			t.Errorf("IsReport(%q) = %v, want %v", args, got, want)
		}
	}
}
