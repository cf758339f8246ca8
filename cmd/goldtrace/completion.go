package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/trace"
)

// The shell completion of values that live in the database (user names,
// batches, dataset names and versions, metadata keys) and of the fixed
// choices of --format and --profile. The database is opened read-only and
// never created; when it is missing or unreadable completion offers
// nothing, and `goldtrace __complete …` says why on stderr in one line and
// exits 2.

// A completer reads the names it offers through app (which reads them as
// nobody: completion shows only what anyone may list).
type completer func(ctx context.Context, be *app.App, toComplete string) ([]string, error)

// completeFrom turns a completer into a cobra completion function.
func completeFrom(cli *CLI, fn completer) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		be, closeStore, err := cli.completionBackend(ctx)
		if err != nil {
			cli.completionErr = err
			return nil, cobra.ShellCompDirectiveError
		}
		defer closeStore()
		values, err := fn(ctx, be, toComplete)
		if err != nil {
			cli.completionErr = fmt.Errorf("complete from %s: %w", cli.DBPath, err)
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func userNames(role string) completer {
	return func(ctx context.Context, be *app.App, _ string) ([]string, error) { return be.UserNames(ctx, role) }
}

func metaKeys(extra ...string) completer {
	return func(ctx context.Context, be *app.App, _ string) ([]string, error) { return be.MetaKeys(ctx, extra...) }
}

func userList(ctx context.Context, be *app.App, s string) ([]string, error) {
	return be.UserList(ctx, s)
}
func batchNames(ctx context.Context, be *app.App, _ string) ([]string, error) {
	return be.BatchNames(ctx)
}
func datasetNames(ctx context.Context, be *app.App, _ string) ([]string, error) {
	return be.DatasetNames(ctx)
}
func datasetRefs(ctx context.Context, be *app.App, _ string) ([]string, error) {
	return be.DatasetRefs(ctx)
}

// fixed completes one of a fixed list of values, without the database.
func fixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// registerCompletions attaches completion to every command's flags and
// arguments that name something.
//
// It is long because it is a table: one line per command and flag.
func registerCompletions(root *cobra.Command, cli *CLI) {
	flag := func(path, name string, fn cobra.CompletionFunc) {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || cmd.Flags().Lookup(name) == nil {
			return // the command or flag is gone: nothing to complete
		}
		_ = cmd.RegisterFlagCompletionFunc(name, fn)
	}
	args := func(path string, fn cobra.CompletionFunc) {
		if cmd, _, err := root.Find(strings.Fields(path)); err == nil && cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = fn
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("as"); f != nil {
			role := ""
			switch c.Name() {
			case "adjudicate", "dashboard", "resolve", "export":
				role = string(app.RoleLead)
			case "label":
				role = string(app.RoleReviewer)
			}
			_ = c.RegisterFlagCompletionFunc("as", completeFrom(cli, userNames(role)))
		}
		if c.Flags().Lookup("batch") != nil && c.Name() != "sample" {
			_ = c.RegisterFlagCompletionFunc("batch", completeFrom(cli, batchNames))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	flag("sample", "reviewers", completeFrom(cli, userList))
	flag("sample", "by", completeFrom(cli, metaKeys("tool")))
	flag("sample", "format", fixed(app.InputFormats...))
	flag("sample", "alloc", fixed("proportional", "equal"))
	flag("sample", "turns", fixed("calls", "no-calls", "all"))
	flag("import", "format", fixed(trace.Formats...))
	flag("export", "format", fixed(append([]string{"jsonl"}, dataset.Formats...)...))
	flag("score", "format", fixed(app.ScoreFormats...))
	flag("score", "profile", fixed(app.ProfileNames...))
	flag("score", "by", completeFrom(cli, metaKeys()))
	flag("score", "gold", func(cmd *cobra.Command, a []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		refs, dir := completeFrom(cli, datasetRefs)(cmd, a, toComplete)
		if dir == cobra.ShellCompDirectiveError {
			cli.completionErr = nil // a gold file needs no database
		}
		return refs, cobra.ShellCompDirectiveDefault // files too
	})
	flag("score", "pred-format", fixed(trace.Formats...))
	flag("resolve", "pick", completeFrom(cli, userNames(string(app.RoleReviewer))))
	flag("resolve", "to", completeFrom(cli, userNames(string(app.RoleReviewer))))
	flag("labels export", "reviewer", completeFrom(cli, userNames(string(app.RoleReviewer))))
	flag("users add", "role", fixed(string(app.RoleReviewer), string(app.RoleLead)))
	args("export", completeFrom(cli, func(ctx context.Context, be *app.App, tc string) ([]string, error) {
		names, err := datasetNames(ctx, be, tc)
		if err != nil {
			return nil, err
		}
		refs, err := datasetRefs(ctx, be, tc)
		return append(names, refs...), err
	}))
	args("datasets", completeFrom(cli, datasetNames))
	refsOrFiles := func(cmd *cobra.Command, a []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(a) >= 2 && cmd.Name() == "diff" || len(a) >= 1 && cmd.Name() != "diff" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		refs, dir := completeFrom(cli, datasetRefs)(cmd, a, toComplete)
		if dir == cobra.ShellCompDirectiveError {
			cli.completionErr = nil // files need no database
		}
		return refs, cobra.ShellCompDirectiveDefault
	}
	args("diff", refsOrFiles)
	args("verify", refsOrFiles)
	args("users remove", completeFrom(cli, userNames("")))
	args("users key add", completeFrom(cli, userNames("")))
	args("users key remove", completeFrom(cli, userNames("")))
	args("settings set", func(_ *cobra.Command, a []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(a) == 0 {
			return []cobra.Completion{"review_agreed"}, cobra.ShellCompDirectiveNoFileComp
		}
		return []cobra.Completion{"true", "false"}, cobra.ShellCompDirectiveNoFileComp
	})
}
