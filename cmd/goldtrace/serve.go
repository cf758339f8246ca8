package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/server"
	"github.com/goldtrace/goldtrace/server/surface"
	"github.com/goldtrace/goldtrace/tui"
)

// newServeCmd builds goldtrace serve. It is long because the server's limits
// each have a flag and help; the serving is server's.
func newServeCmd(cli *CLI) *cobra.Command {
	var listen, hostKey, exportDir string
	var grace time.Duration
	limits := server.DefaultLimits()
	cmd := &cobra.Command{
		Use:   "serve [--listen ADDR] [--host-key FILE]",
		Short: "Team mode: an SSH server where each user's key is who they are",
		Long: `serve opens the project to a team over SSH. A user is whoever holds one of their
keys (goldtrace users add NAME --key KEY); nobody else gets in. Reviewers need only
ssh: "ssh -p 2222 HOST" opens their label queue (a lead's dashboard), and
"ssh -p 2222 HOST -- COMMAND ARGS…" runs a goldtrace command as the key's user,
e.g. "-- datasets get NAME@vN" for CI. The host key is created on the first start
(beside the database unless --host-key) and its fingerprint printed, so users can
check it. SIGTERM or ctrl+c stops accepting connections, saves open screens'
drafts, lets running commands finish (up to --grace) and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			server.TuneGC()
			be, err := cli.Backend(ctx)
			if err != nil {
				return err
			}
			if hostKey == "" {
				if app.IsPostgres(cli.DBPath) {
					// Nothing is beside a PostgreSQL database; and every
					// replica must show clients the same key.
					return &exitError{code: 2, err: fmt.Errorf("serve on PostgreSQL (database %s) needs --host-key FILE: give every replica the same key file, so clients that reconnect to another replica trust it", cli.DBPath)}
				}
				hostKey = server.HostKeyPath(cli.DBPath)
			}
			signer, created, err := server.LoadHostKey(hostKey)
			if err != nil {
				return err
			}
			l, err := server.Listen(listen)
			if err != nil {
				return err
			}
			site := siteOf(cli.DBPath)
			if exportDir != "" {
				site.exportDir = exportDir
			}
			cfg := serverConfig(be, site, signer, limits)
			cfg.Log, cfg.Version = cli.Err, version
			srv, err := server.New(cfg)
			if err != nil {
				l.Close()
				return err
			}
			be.OnWithheld(srv.Withheld) // the log says what a reviewer is not told
			keyNote := "host key " + hostKey
			if created {
				keyNote = "host key created: " + hostKey
			}
			fmt.Fprintf(cli.Out, "goldtrace serve: listening on %s\n%s\nfingerprint %s\nconnect: ssh -p %s HOST\n",
				l.Addr(), keyNote, srv.HostKeyFingerprint(), port(l.Addr()))
			walCtx, stopWAL := context.WithCancel(context.WithoutCancel(ctx))
			defer stopWAL()
			go be.KeepWALSmall(walCtx, 10*time.Second, 64<<20) // nothing to do on PostgreSQL
			go be.KeepRestoringRecoveries(walCtx, app.RecoveryBase(cli.DBPath), app.RecoveryRestoreEvery, srv.Note)
			served := make(chan error, 1)
			go func() { served <- srv.Serve(l) }()
			select {
			case err := <-served:
				return fmt.Errorf("serve: %w", err)
			case <-ctx.Done():
			}
			fmt.Fprintln(cli.Err, "goldtrace serve: shutting down: no new connections; saving open sessions' drafts")
			sctx, cancel := context.WithTimeout(context.Background(), grace)
			defer cancel()
			err = srv.Shutdown(sctx)
			<-served
			if err != nil {
				fmt.Fprintln(cli.Err, "goldtrace serve: "+err.Error())
			}
			fmt.Fprintln(cli.Err, "goldtrace serve: stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:2222", "address to listen on (HOST:PORT; :2222 for every interface)")
	cmd.Flags().StringVar(&hostKey, "host-key", "", "the server's private host key (default: beside the database, created on first start)")
	cmd.Flags().StringVar(&exportDir, "export-dir", "", "where export over SSH writes a new version's files (default: beside a SQLite database; a PostgreSQL project: none, and export over SSH is refused)")
	cmd.Flags().DurationVar(&grace, "grace", 10*time.Second, "on shutdown, how long running commands may take to finish")
	f := cmd.Flags()
	f.DurationVar(&limits.HandshakeTimeout, "handshake-timeout", limits.HandshakeTimeout, "close a connection that has not authenticated by then")
	f.IntVar(&limits.MaxUnauthenticated, "max-unauthenticated", limits.MaxUnauthenticated, "connections still authenticating at once, in all")
	f.IntVar(&limits.MaxUnauthenticatedPerHost, "max-unauthenticated-per-host", limits.MaxUnauthenticatedPerHost, "connections still authenticating at once, from one address")
	f.IntVar(&limits.SessionsPerKey, "sessions-per-key", limits.SessionsPerKey, "open sessions (screens and commands) one key may have")
	f.DurationVar(&limits.IdleTimeout, "idle-timeout", limits.IdleTimeout, "close a connection with no traffic either way for this long")
	f.DurationVar(&limits.StallTimeout, "stall-timeout", limits.StallTimeout, "end a command whose client takes none of its output for this long")
	f.IntVar(&limits.MaxWidth, "max-width", limits.MaxWidth, "widest terminal a screen is drawn for (wider ones are clamped)")
	f.IntVar(&limits.MaxHeight, "max-height", limits.MaxHeight, "tallest terminal a screen is drawn for (taller ones are clamped)")
	f.IntVar(&limits.MaxLine, "max-line", limits.MaxLine, "longest line (bytes) a command reads from a client's stdin")
	f.IntVar(&limits.MaxErrorLines, "max-error-lines", limits.MaxErrorLines, "error lines a command sends back before it counts the rest")
	f.IntVar(&limits.Reports, "reports", limits.Reports, "report commands (status, export, score …) running at once over SSH; more wait their turn")
	f.Float64Var(&limits.ReportShare, "report-share", limits.ReportShare, "share of the server's time reports may take while reviewers type (1: no bound)")
	f.DurationVar(&limits.RevokeCheck, "revoke-check", limits.RevokeCheck, "how often open sessions' keys are checked against the users' keys (a removal over SSH, or on PostgreSQL by any process, acts at once)")
	return cmd
}

// serverConfig is what serve hands the SSH server: the key lookup, home
// screens, the SSH command tree, the audit log of refusals, and limits.
func serverConfig(be *app.App, site sshSite, signer gossh.Signer, limits server.Limits) server.Config {
	return server.Config{
		HostKey:  signer,
		KeyActor: be.KeyActor,
		Home:     homeScreen(be, app.RecoveryBase(site.db)),
		Exec:     remoteExec(be, site),
		// Removals of keys by other processes (replicas on PostgreSQL).
		WatchKeys: be.WatchKeyRemovals,
		Report:    sshSurface.IsReport,
		Limits:    limits,
		AuthFailed: func(ctx context.Context, fp, what string) {
			_ = be.RecordAuthFailure(ctx, fp, what)
		},
		Refused: func(ctx context.Context, actor app.Actor, what string) {
			_ = be.RecordSSHRefusal(ctx, actor, 0, nil, what)
		},
	}
}

func port(addr net.Addr) string {
	_, p, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return p
}

// homeScreen is the screen a user lands on: a reviewer's label queue, a
// lead's dashboard (adjudication one key away), each through the actor's
// app session, as label and dashboard open them. A ci key has no screen.
func homeScreen(be *app.App, dbPath string) server.HomeFunc {
	return func(ctx context.Context, actor app.Actor, r *lipgloss.Renderer) (*tui.Root, error) {
		session := be.As(actor)
		c := tui.NewCommon(session)
		c.Styles = tui.StylesWith(r, r.ColorProfile() == termenv.Ascii)
		switch actor.Role {
		case app.RoleReviewer:
			if _, err := session.Open(ctx, app.ActQueueRead, "label queue"); err != nil {
				return nil, err
			}
			opts := tui.LabelOptions{Reviewer: actor.Name, Recovery: app.RecoveryPath(dbPath, actor.Name), RecoveryServed: true}
			return tui.NewLabelRoot(c, opts, r.HasDarkBackground()), nil
		case app.RoleLead:
			if _, err := session.Open(ctx, app.ActDashboard, "dashboard"); err != nil {
				return nil, err
			}
			return tui.NewDashboardRoot(c, tui.DashboardOptions{Lead: actor.Name}), nil
		}
		return nil, fmt.Errorf("%s is a %s key: it runs commands only (ssh HOST -- datasets get NAME@vN)", actor.Name, actor.Role)
	}
}

// sshSurface is the SSH command surface over the local command tree (set
// in init: the tree's serve command refers to it).
var sshSurface *surface.Surface

func init() {
	sshSurface = surface.New(func() *cobra.Command {
		return newRootCmd(&CLI{Out: io.Discard, Err: io.Discard, remote: true})
	})
}

// sshSite is what a server's SSH commands run on: its database, and the
// directory export writes into ("": none).
type sshSite struct{ db, exportDir string }

// siteOf is the site of a server on db with the default export directory:
// beside a SQLite database; none for a PostgreSQL one.
func siteOf(db string) sshSite {
	if app.IsPostgres(db) {
		return sshSite{db: db}
	}
	return sshSite{db: db, exportDir: filepath.Dir(db)}
}

// runSSH runs one command line an SSH client sent, as actor, in the local
// tree over the server's database cut down to actor's SSH surface.
func runSSH(ctx context.Context, a *CLI, actor app.Actor, site sshSite, args []string) error {
	root := newRootCmd(a)
	a.DBPath = site.db // the server's database, whatever GOLDTRACE_DB says
	return sshSurface.Run(ctx, root, actor, site.exportDir, args)
}

// remoteExec runs a command line from an SSH client in the SSH command
// tree built for the actor the context carries (server/surface), on the
// server's open store. export writes its files beside the database, never
// where a client says; datasets get fetches them. Every command line the
// surface refuses is recorded in the audit log; an error says where the
// database lives only to a lead (surface.Failure).
func remoteExec(be *app.App, site sshSite) server.ExecFunc {
	return func(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
		// Commands print line by line; unbuffered, each line would be an
		// SSH packet and a system call of its own (status: dozens).
		bout := bufio.NewWriterSize(out, 8<<10)
		defer bout.Flush()
		actor, ok := app.ActorFrom(ctx)
		if !ok {
			fmt.Fprintln(errw, "goldtrace: no identity for this command")
			return 2
		}
		a := &CLI{In: in, Out: bout, Err: errw, backend: be, remote: true}
		err := runSSH(ctx, a, actor, site, args)
		if err == nil {
			return 0
		}
		bout.Flush() // what the command printed comes before its error
		for _, line := range surface.Failure(ctx, be, actor, site.db, args, err) {
			fmt.Fprintln(errw, "goldtrace: "+line)
		}
		return exitCode(err)
	}
}
