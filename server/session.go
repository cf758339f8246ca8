package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	wishtea "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

// liveSession is an open session: a screen (program, which Shutdown tells
// to save and end) or a command (which Shutdown waits for).
type liveSession struct {
	fp, user string
	sess     ssh.Session
	mu       sync.Mutex
	program  *tea.Program
	cancel   context.CancelFunc
	endOnce  sync.Once
}

func (ls *liveSession) setCancel(cancel context.CancelFunc) {
	ls.mu.Lock()
	ls.cancel = cancel
	ls.mu.Unlock()
}

// end ends the session now (its key was removed, its client stalled):
// the command or screen is cancelled, the client told why if it takes
// the message within a second, and the channel closed.
func (ls *liveSession) end(why string) {
	ls.endOnce.Do(func() {
		ls.mu.Lock()
		cancel := ls.cancel
		ls.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		told := make(chan struct{})
		go func() {
			fmt.Fprintf(ls.sess.Stderr(), "goldtrace: %s\r\n", why)
			close(told)
		}()
		select {
		case <-told:
		case <-time.After(time.Second):
		}
		_ = ls.sess.Close()
	})
}

func (ls *liveSession) shutdown() {
	ls.mu.Lock()
	p := ls.program
	ls.mu.Unlock()
	if p != nil {
		p.Send(tui.StatusMsg{Text: "the server is shutting down: saving your work"})
		p.Send(tui.QuitMsg{})
	}
}

// handle is the one session handler (a wish middleware that ends the
// chain): identity first, then a command or a screen.
func (s *Server) handle(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("session panic", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				fmt.Fprint(sess.Stderr(), "goldtrace: internal error in this session\r\n")
				_ = sess.Exit(2)
			}
		}()
		actor, err := s.sessionActor(sess)
		if err != nil {
			s.log.Warn("session refused", "from", remoteHost(sess.RemoteAddr()), "reason", err.Error())
			// Who this is is not known: where the database lives is
			// withheld (the log above has it).
			fmt.Fprintf(sess.Stderr(), "goldtrace: %s\r\n", app.Withheld(err))
			_ = sess.Exit(2)
			return
		}
		if p, ok := sess.Context().Value(gateKey{}).(*pending); ok {
			p.leave() // authenticated: no longer waiting at the gate
		}
		ls := &liveSession{fp: actor.KeyFingerprint, user: actor.Name, sess: sess}
		if err := s.track(ls); err != nil {
			if !s.closing.Load() {
				s.log.Warn("session refused", "user", actor.Name, "key", actor.KeyFingerprint, "reason", err.Error())
				s.refused(actor, err.Error())
			}
			fmt.Fprintf(sess.Stderr(), "goldtrace: %s\r\n", err)
			_ = sess.Exit(2)
			return
		}
		defer s.untrack(ls)
		var code int
		kind := "screen"
		if cmd := sess.Command(); len(cmd) > 0 {
			kind = "exec " + strings.Join(cmd, " ")
			code = s.exec(sess, ls, actor, cmd)
		} else {
			code = s.screen(sess, ls, actor)
		}
		s.log.Info("session", "user", actor.Name, "role", string(actor.Role), "key", actor.KeyFingerprint,
			"from", remoteHost(sess.RemoteAddr()), "kind", kind, "exit", code, "took", time.Since(start).Round(time.Millisecond).String())
		_ = sess.Exit(code)
	}
}

// exec runs a command as the actor. It gets the session's context, ended
// early only when a shutdown's grace period runs out.
func (s *Server) exec(sess ssh.Session, ls *liveSession, actor app.Actor, args []string) int {
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	ls.setCancel(cancel)
	stop := context.AfterFunc(s.hardStop, cancel)
	defer stop()
	if s.cfg.Report != nil && s.cfg.Report(args) {
		release, err := s.reports.admit(ctx)
		if err != nil {
			fmt.Fprint(sess.Stderr(), "goldtrace: cancelled while waiting its turn: the session ended (the server is shutting down, the key was removed, or the client went away)\r\n")
			return 2
		}
		defer release()
	}
	out, errOut := &stallWatch{w: sess}, &stallWatch{w: sess.Stderr()}
	errs := &lineCap{w: errOut, max: s.limits.MaxErrorLines}
	in := &lineLimit{r: sess, max: s.limits.MaxLine}
	done := make(chan struct{})
	go s.watchStall(ls, actor, done, out, errOut)
	code := s.cfg.Exec(app.WithActor(ctx, actor), args, in, out, errs)
	close(done)
	errs.finish()
	if slices.Contains(args, "users") {
		// Only the users commands remove keys; checking every open
		// session's key after each status a dashboard script polls would
		// cost a query per key per command.
		s.checkKeysNow()
	}
	return code
}

// watchStall ends a command whose client has not taken its output for the
// stall timeout: a command blocked writing may be holding a database
// snapshot open, which keeps the WAL from being checkpointed.
func (s *Server) watchStall(ls *liveSession, actor app.Actor, done <-chan struct{}, outs ...*stallWatch) {
	d := s.limits.StallTimeout
	tick := time.NewTicker(min(time.Second, d/4))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		for _, w := range outs {
			if w.stalled(d) {
				why := fmt.Sprintf("your client took no output for %s: the command was ended (goldtrace serve --stall-timeout)", d)
				s.log.Warn("command ended: client stalled", "user", actor.Name, "key", actor.KeyFingerprint, "after", d.String())
				s.refused(actor, why)
				ls.end(why)
				return
			}
		}
	}
}

// refused records a refusal of an authenticated key's request.
func (s *Server) refused(actor app.Actor, what string) {
	if s.cfg.Refused != nil {
		s.cfg.Refused(context.Background(), actor, what)
	}
}

// screen runs the actor's home screen on the session's terminal until they
// quit, the client goes away (the screen saves its drafts first) or the
// server shuts down (likewise).
func (s *Server) screen(sess ssh.Session, ls *liveSession, actor app.Actor) int {
	_, windows, ok := sess.Pty()
	if !ok {
		fmt.Fprint(sess.Stderr(), "goldtrace: no terminal: connect with ssh -t for your screen, or give a command (ssh HOST -- status)\r\n")
		return 2
	}
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	ls.setCancel(cancel)
	r := sessionRenderer(sess)
	model, err := s.cfg.Home(app.WithActor(ctx, actor), actor, r)
	if err != nil {
		var denied *app.DeniedError
		if !errors.As(err, &denied) { // app records its own refusals
			s.refused(actor, "screen: "+oneLine(err.Error()))
		}
		fmt.Fprintf(sess.Stderr(), "goldtrace: %s\r\n", oneLine(err.Error()))
		return 2
	}
	opts := append(wishtea.MakeOptions(sess),
		tea.WithAltScreen(), tea.WithMouseCellMotion(),
		// The process's signals are the server's, not this session's.
		tea.WithoutSignalHandler(),
		tea.WithEnvironment(sess.Environ()),
		// A key's frame goes out on the renderer's next tick: at 120 a
		// second it waits at most ~8 ms instead of ~17.
		tea.WithFPS(120),
		// Keys tell the report gate that reviewers are typing.
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			if _, ok := msg.(tea.KeyMsg); ok {
				s.keys.key()
			}
			return msg
		}))
	p := tea.NewProgram(model, opts...)
	ls.mu.Lock()
	ls.program = p
	ls.mu.Unlock()

	// RunProgram saves the screen's work however the session ends: ctrl+c,
	// the client going away (the session's context ends), or Shutdown.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case w, ok := <-windows:
				if !ok {
					return
				}
				// A client's size is clamped: the screen renders what
				// it is told, and 10000×10000 would be ~100 MB a frame.
				w = s.limits.clampWindow(w)
				p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
			}
		}
	}()
	runErr := model.RunProgram(ctx, p)
	var notice *tui.QuitNotice
	if errors.As(runErr, &notice) {
		// The work was kept outside the database (a recovery file on the
		// server): say so after the screen is gone.
		for _, l := range notice.Lines {
			fmt.Fprintf(sess.Stderr(), "goldtrace: %s\r\n", l)
		}
		runErr = nil
	}
	if s.closing.Load() {
		if runErr != nil {
			fmt.Fprintf(sess.Stderr(), "goldtrace: the server is shutting down; your work could not be saved: %s\r\n", oneLine(runErr.Error()))
			return 2
		}
		fmt.Fprint(sess, "goldtrace: the server is shutting down; your work is saved\r\n")
		return 0
	}
	if runErr != nil && sess.Context().Err() == nil {
		fmt.Fprintf(sess.Stderr(), "goldtrace: %s\r\n", oneLine(runErr.Error()))
		return 2
	}
	return 0
}

// sessionRenderer is a lipgloss renderer for the client's terminal: its
// colour profile comes from the TERM (and COLORTERM, when sent) the client
// gave, NO_COLOR sent by the client turns colours off, and the background
// is taken as dark unless COLORFGBG says light. It never queries the
// terminal, which would read the user's first keystrokes.
func sessionRenderer(sess ssh.Session) *lipgloss.Renderer {
	env := sess.Environ()
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(environ(env)), termenv.WithUnsafe(), termenv.WithColorCache(true))
	r.SetHasDarkBackground(!lightBackground(environ(env).Getenv("COLORFGBG")))
	if environ(env).Getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}

// lightBackground reads COLORFGBG ("15;0" is light text on a dark
// background; "0;15" dark on light).
func lightBackground(v string) bool {
	parts := strings.Split(v, ";")
	switch parts[len(parts)-1] {
	case "7", "15":
		return true
	}
	return false
}

type environ []string

func (e environ) Environ() []string { return e }

func (e environ) Getenv(k string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(e[i], k+"="); ok {
			return v
		}
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
