package tui

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// flushState tracks the pages' Flush commands across the ways a session
// ends: quitting by key, a signal (SIGHUP when the terminal or SSH
// connection closes, SIGTERM), the context ending, or the terminal
// failing under the program.
type flushState struct {
	mu      sync.Mutex
	started bool
	cmds    []func() tea.Msg // each runs once, wherever it is called first
	reports []FlushReportMsg
}

// flushCmds are the pages' Flush commands, each recording its report; the
// first call only (a second quit must not save twice).
func (r *Root) flushCmds() []tea.Cmd {
	r.flush.mu.Lock()
	defer r.flush.mu.Unlock()
	if r.flush.started {
		return nil
	}
	r.flush.started = true
	var cmds []tea.Cmd
	// Every page saves, not only the one shown: a draft behind the guide
	// must survive quitting from the guide.
	for _, id := range []PageID{PageLabel, PageAdjudicate, PageDashboard, PageGuide} {
		p, ok := r.pages[id]
		if !ok {
			continue
		}
		cmd := p.Flush()
		if cmd == nil {
			continue
		}
		var once sync.Once
		var msg tea.Msg
		run := func() tea.Msg {
			once.Do(func() {
				msg = cmd()
				if rep, ok := msg.(FlushReportMsg); ok {
					r.flush.mu.Lock()
					r.flush.reports = append(r.flush.reports, rep)
					r.flush.mu.Unlock()
				}
			})
			return msg
		}
		r.flush.cmds = append(r.flush.cmds, run)
		cmds = append(cmds, run)
	}
	return cmds
}

// quitGrace bounds how long a signalled session may take to flush before
// the program is stopped; the flush itself is then finished outside it.
const quitGrace = flushWait + flushSaveLimit + 2*time.Second

// runFlushing runs the program and makes sure the pages' work is flushed
// however it ends, then returns what the flush could not store in the
// database: an error when work was lost, a *QuitNotice when it was kept
// elsewhere.
func (r *Root) runFlushing(ctx context.Context, prog *tea.Program) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sig)
	finished := make(chan struct{})
	go func() {
		select {
		case <-finished:
			return
		case <-ctx.Done():
		case <-sig:
		}
		prog.Send(QuitMsg{})
		select {
		case <-finished:
		case <-time.After(quitGrace):
			prog.Kill()
		}
	}()
	_, err := prog.Run()
	close(finished)
	if errors.Is(err, tea.ErrProgramKilled) || ctx.Err() != nil {
		err = nil
	}
	// The program may have ended before quitting (the terminal went away)
	// or in the middle of the flush: finish it here.
	r.flushCmds()
	r.flush.mu.Lock()
	cmds := r.flush.cmds
	r.flush.mu.Unlock()
	for _, run := range cmds {
		run() // waits for one already running
	}
	r.flush.mu.Lock()
	defer r.flush.mu.Unlock()
	var errs []error
	var notes []string
	for _, rep := range r.flush.reports {
		if rep.Err != nil {
			errs = append(errs, rep.Err)
		}
		if rep.Notice != "" {
			notes = append(notes, rep.Notice)
		}
	}
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if len(notes) > 0 {
		return &QuitNotice{Lines: notes}
	}
	return nil
}

// QuitNotice is what a session that ended well wants said afterwards (the
// screen is gone): e.g. a draft kept in the recovery file. Commands print
// its lines on stderr and exit 0.
type QuitNotice struct{ Lines []string }

func (n *QuitNotice) Error() string { return strings.Join(n.Lines, "; ") }
