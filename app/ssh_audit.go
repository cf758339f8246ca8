package app

import (
	"context"
	"strings"

	"github.com/goldtrace/goldtrace/store"
)

// Audit actions of the SSH front door, beside the action × role table's:
// what it refused before any action ran.
const (
	// auditSSHRefused: a command line the SSH command surface refused (a
	// command or flag the key's role has not over SSH, a malformed line).
	auditSSHRefused = "ssh.refused"
	// auditSSHAuth: a key no user has, refused at the handshake.
	auditSSHAuth = "ssh.auth"
)

// maxAuditLine bounds what an entry quotes of a client's command line.
const maxAuditLine = 300

// RecordSSHRefusal records that the SSH front door refused actor's command
// line args before anything ran, and why. action is the table's action the
// refusal is about, or 0 when it is about none (an unknown command or
// flag): the entry's action is then ssh.refused.
func (a *App) RecordSSHRefusal(ctx context.Context, actor Actor, action Action, args []string, why string) error {
	object := clip(why, maxAuditLine)
	if len(args) > 0 {
		object = clip(strings.Join(args, " "), maxAuditLine) + ": " + object
	}
	e := entry(actor, action, object, store.AuditDenied)
	if action == 0 {
		e.Action = auditSSHRefused
	}
	return a.audited(store.WithAudit(ctx, e))
}

// RecordAuthFailure records unknown-key attempts from one address: what
// leads see in audit (--action ssh.auth) of who knocked.
func (a *App) RecordAuthFailure(ctx context.Context, fingerprint, what string) error {
	return a.audited(store.WithAudit(ctx, store.AuditEntry{
		Actor: "", Source: string(SourceSSH), KeyFingerprint: fingerprint,
		Action: auditSSHAuth, Object: clip(what, maxAuditLine), Outcome: store.AuditDenied,
	}))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
