package tui

import "github.com/charmbracelet/bubbles/key"

// AdjudicateKeys drive the lead's adjudication screen.
type AdjudicateKeys struct {
	// Browsing the queue.
	Pick      key.Binding // 1…9: that reviewer's label becomes gold
	Accept    key.Binding // take the agreeing labels of an item held for review
	Edit      key.Binding // write a merged label from one of them
	Both      key.Binding // both acceptable: one primary, the other acceptable
	Rules     key.Binding // per-argument rules on an answer
	SendBack  key.Binding // return the item to its reviewers with a note
	GuideNote key.Binding // propose a change to the labeling guide
	Kind      key.Binding // cycle the dispute-kind filter
	Next      key.Binding
	Prev      key.Binding
	LabelsUp  key.Binding
	LabelsDn  key.Binding
	Dashboard key.Binding // back to the dashboard (when the session has one)

	// Inside forms.
	Confirm   key.Binding // commit the decision / accept the form
	Cancel    key.Binding // close the open form
	Save      key.Binding // check and keep the edited label
	OpenRules key.Binding // from the reason prompt: argument rules for this decision
	RuleUp    key.Binding
	RuleDown  key.Binding
	RuleCycle key.Binding // next rule for the selected argument
	RuleBack  key.Binding // previous rule
}

func defaultAdjudicateKeys() AdjudicateKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return AdjudicateKeys{
		Pick:      b("1-9", "pick", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		Accept:    b("a", "accept", "a"),
		Edit:      b("e", "merge", "e"),
		Both:      b("b", "both", "b"),
		Rules:     b("r", "rules", "r"),
		SendBack:  b("s", "send back", "s"),
		GuideNote: b("g", "guide note", "g"),
		Kind:      b("f", "kind filter", "f"),
		Next:      b("→", "next", "right", "l"),
		Prev:      b("←", "prev", "left", "h"),
		LabelsUp:  b("↑/k", "labels up", "up", "k"),
		LabelsDn:  b("↓/j", "labels down", "down", "j"),
		Dashboard: b("d", "dashboard", "d"),

		Confirm:   b("enter", "confirm", "enter"),
		Cancel:    b("esc", "cancel", "esc"),
		Save:      b("ctrl+s", "check & use", "ctrl+s"),
		OpenRules: b("ctrl+r", "arg rules", "ctrl+r"),
		RuleUp:    b("↑", "prev arg", "up", "shift+tab"),
		RuleDown:  b("↓", "next arg", "down", "tab"),
		RuleCycle: b("space/→", "next rule", " ", "right"),
		RuleBack:  b("←", "prev rule", "left"),
	}
}
