package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandExamples are the Examples: of each command's help, by command path
// (without "goldtrace"), 2–4 real invocations each. A command that sets its
// own Example keeps it. TestEveryCommandHasExamples parses each one with the
// real command tree.
var commandExamples = map[string][]string{
	"": {
		"goldtrace demo",
		"goldtrace import traces.jsonl.gz && goldtrace traces",
		"goldtrace status --as carol",
	},
	"adjudicate": {
		"goldtrace adjudicate --as carol",
		"goldtrace adjudicate --as carol --batch b1 --kind tool",
	},
	"audit": {
		"goldtrace audit --as carol",
		"goldtrace audit --as carol --actor alice --last 20",
		"goldtrace audit --as carol --action labels.import-others --json",
	},
	"backup": {
		"goldtrace backup goldtrace-2026-05-01.db",
		"goldtrace backup /mnt/backups/support.db --db support.db",
	},
	"judge": {
		"goldtrace judge prompt args > args.tmpl",
		"goldtrace judge calibrate --gold support@v3 --judge args --judge-model gpt-4o-2024-08-06",
	},
	"judge prompt": {
		"goldtrace judge prompt args",
		"goldtrace judge prompt quality > quality.tmpl",
	},
	"batches": {
		"goldtrace batches",
		"goldtrace batches --json",
	},
	"check": {
		"goldtrace check",
		"goldtrace check --json --db support.db",
	},
	"completion": {
		"goldtrace completion bash > /etc/bash_completion.d/goldtrace",
		"goldtrace completion zsh > \"${fpath[1]}/_goldtrace\"",
		"goldtrace completion fish > ~/.config/fish/completions/goldtrace.fish",
	},
	"completion bash": {
		"goldtrace completion bash > /etc/bash_completion.d/goldtrace",
		"goldtrace completion bash > ~/.local/share/bash-completion/completions/goldtrace",
	},
	"completion zsh": {
		"goldtrace completion zsh > \"${fpath[1]}/_goldtrace\"",
		"goldtrace completion zsh > ~/.zsh/completions/_goldtrace",
	},
	"completion fish": {
		"goldtrace completion fish > ~/.config/fish/completions/goldtrace.fish",
		"goldtrace completion fish | source",
	},
	"completion powershell": {
		"goldtrace completion powershell > goldtrace.ps1",
		"goldtrace completion powershell | Out-String | Invoke-Expression",
	},
	"dashboard": {
		"goldtrace dashboard --as carol",
		"goldtrace dashboard --as carol --batch b2",
	},
	"datasets": {
		"goldtrace datasets",
		"goldtrace datasets support --json",
	},
	"datasets get": {
		"goldtrace datasets get support@v3 > gold.jsonl",
		"goldtrace datasets get support@v3 --manifest > support-v3.manifest.json",
	},
	"diff": {
		"goldtrace diff support@v2 support@v3",
		"goldtrace diff datasets/support-v2.jsonl datasets/support-v3.jsonl --json",
	},
	"export": {
		"goldtrace export support --as carol --out datasets -m \"first cut\"",
		"goldtrace export support --as carol --batch b1 --where meta.cohort=billing",
		"goldtrace export support --as carol --format promptfoo --format hf --out datasets",
		"goldtrace export support@v2 --out datasets --format bfcl",
	},
	"guide": {
		"goldtrace guide set guide.md --as carol",
		"goldtrace guide show",
		"goldtrace guide log",
	},
	"guide log": {
		"goldtrace guide log",
		"goldtrace guide log --json",
	},
	"guide set": {
		"goldtrace guide set guide.md --as carol",
		"goldtrace guide set docs/labeling-guide.md --as carol --db support.db",
	},
	"guide show": {
		"goldtrace guide show",
		"goldtrace guide show --version g_1a2b3c4d5e6f --raw",
	},
	"import": {
		"goldtrace import prod-traces.jsonl.gz",
		"goldtrace import --format otlp spans-*.json --skip-invalid",
		"goldtrace import --format openai - < chat-logs.jsonl",
	},
	"label": {
		"goldtrace label --as alice",
		"goldtrace label --as bob --batch b2",
	},
	"labels": {
		"goldtrace labels export --out labels.jsonl",
		"goldtrace labels import labels.jsonl",
	},
	"labels export": {
		"goldtrace labels export --as alice --out my-labels.jsonl",
		"goldtrace labels export --as carol --batch b1 --reviewer alice",
	},
	"items": {
		"goldtrace items --as carol --state disputed",
		"goldtrace items --as carol --batch b1 --tool escalate_to_human --json",
		"goldtrace items --as alice --state pending",
	},
	"labels import": {
		"goldtrace labels import my-labels.jsonl --as alice",
		"goldtrace labels import old-tool-export.jsonl --as carol --for-others --skip-invalid --json",
	},
	"resolve": {
		"goldtrace resolve it_3f2a9c0d1e2b4a5f --as carol --pick bob --reason \"bob follows the guide\"",
		"goldtrace resolve it_3f2a9c0d1e2b4a5f --as carol --both alice,bob --reason \"both are right\"",
		"goldtrace resolve it_3f2a9c0d1e2b4a5f --as carol --send-back --to alice --reason \"see guide 3.2\"",
		"goldtrace resolve it_3f2a9c0d1e2b4a5f --as carol --label merged.json --rule order_id=fuzzy --reason \"merged\"",
	},
	"sample": {
		"goldtrace sample --n 300 --by tool --reviewers alice,bob --seed 42",
		"goldtrace sample --n 100 --by meta.cohort --alloc equal --turns calls --reviewers alice,bob --batch b2",
		"goldtrace sample --from prod-traces.jsonl.gz --n 200 --reviewers alice,bob --seed 7",
		"goldtrace sample --n 50 --where meta.cohort=billing --dry-run",
	},
	"serve": {
		"goldtrace serve",
		"goldtrace serve --listen :2222 --db support.db",
		"goldtrace serve --listen 10.0.0.5:2222 --host-key /etc/goldtrace/host_key --grace 30s",
	},
	"settings": {
		"goldtrace settings",
		"goldtrace settings set review_agreed true --as carol",
	},
	"settings set": {
		"goldtrace settings set review_agreed true --as carol",
		"goldtrace settings set review_agreed false --as carol",
	},
	"status": {
		"goldtrace status --as carol",
		"goldtrace status --as alice --batch b1",
		"goldtrace status --as carol --json",
	},
	"traces": {
		"goldtrace traces",
		"goldtrace traces --top 0 --json",
	},
	"users": {
		"goldtrace users add carol --role lead --key ~/.ssh/carol.pub",
		"goldtrace users add alice --as carol",
		"goldtrace users list",
	},
	"users add": {
		"goldtrace users add carol --role lead --key ~/.ssh/carol.pub",
		"goldtrace users add alice --as carol",
		"goldtrace users add ci --role ci --key ci_ed25519.pub --as carol",
	},
	"users key": {
		"goldtrace users key add alice ~/.ssh/alice_laptop.pub",
		"goldtrace users key remove alice SHA256:9e8f0a6c1d2b3a4e5f60718293a4b5c6d7e8f90a1b2c",
	},
	"users key add": {
		"goldtrace users key add alice ~/.ssh/alice_laptop.pub",
		"goldtrace users key add bob \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB4h bob@laptop\"",
	},
	"users key remove": {
		"goldtrace users key remove alice SHA256:9e8f0a6c1d2b3a4e5f60718293a4b5c6d7e8f90a1b2c",
		"goldtrace users key remove alice ~/.ssh/alice_laptop.pub",
	},
	"users list": {
		"goldtrace users list",
		"goldtrace users list --json",
	},
	"users remove": {
		"goldtrace users remove dave",
		"goldtrace users remove dave --db support.db",
	},
}

// addExamples sets the Example of every command in the tree that has none
// and is listed in commandExamples.
func addExamples(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" {
			path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), root.Name()))
			if ex, ok := commandExamples[path]; ok {
				c.Example = "  " + strings.Join(ex, "\n  ")
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
