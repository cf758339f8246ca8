package app

import (
	"errors"
	"fmt"
	"strings"
)

// Action is one thing a user can do. Every App method names the action it
// performs and asks Authorize before touching the store.
type Action int

// The actions. Reading labels is split by whose labels they are; reopening
// by who reopens (a reviewer their own label before the item is compared, a
// lead by sending it back).
const (
	ActImport             Action = iota + 1 // import traces
	ActTracesRead                           // summary of stored traces
	ActSample                               // sample items into a batch and assign them
	ActAssign                               // move a reviewer's skipped or stalled items to another
	ActBatchesRead                          // list batches
	ActQueueRead                            // read one's own label queue, items and drafts
	ActLabelSubmit                          // save a draft, submit or skip one's own label
	ActLabelReopen                          // take back one's own label before the item is compared
	ActLabelsReadOwn                        // export one's own labels
	ActLabelsReadAll                        // export every reviewer's labels
	ActLabelsImport                         // import labels made elsewhere, in one's own name
	ActLabelsImportOthers                   // import labels in other reviewers' names (audited)
	ActStatusTotals                         // progress totals (and one's own progress)
	ActStatusDetails                        // every reviewer, agreement, the agreed/disputed split
	ActAdjudicate                           // read disputes, resolve, send back, propose guide changes
	ActGuideRead                            // show the guide and its log
	ActGuideSet                             // set a new guide version
	ActSettingsRead                         // show project settings
	ActSettingsSet                          // change a project setting
	ActUsersRead                            // list users
	ActUsersManage                          // add users, change roles, add or remove keys
	ActExport                               // export the next dataset version
	ActDatasetRead                          // list, read, diff and verify dataset versions
	ActScoreStore                           // score against the store's current (unexported) gold
	ActScoreDataset                         // score against an exported dataset version or a file
	ActDashboard                            // the lead's dashboard: model vs gold so far
	ActAuditRead                            // read the audit log
	ActMaintain                             // check the database, back it up (a copy of everything)
)

// Actions lists every action, in declaration order (tests walk it).
func Actions() []Action {
	out := make([]Action, 0, int(ActMaintain))
	for a := ActImport; a <= ActMaintain; a++ {
		out = append(out, a)
	}
	return out
}

// actionNames: the audit log's name of each action, and what it does in
// words, for refusals ("only a lead may export a dataset version").
var actionNames = map[Action][2]string{
	ActImport:             {"import", "import traces"},
	ActTracesRead:         {"traces.read", "read the trace summary"},
	ActSample:             {"sample", "sample items"},
	ActAssign:             {"assign", "reassign items"},
	ActBatchesRead:        {"batches.read", "list batches"},
	ActQueueRead:          {"queue.read", "open a label queue"},
	ActLabelSubmit:        {"label.submit", "label items"},
	ActLabelReopen:        {"label.reopen", "reopen a label"},
	ActLabelsReadOwn:      {"labels.read-own", "export labels"},
	ActLabelsReadAll:      {"labels.read-all", "export every reviewer's labels"},
	ActLabelsImport:       {"labels.import", "import labels"},
	ActLabelsImportOthers: {"labels.import-others", "import labels in other reviewers' names"},
	ActStatusTotals:       {"status.totals", "see the status"},
	ActStatusDetails:      {"status.details", "see every reviewer's progress and agreement"},
	ActAdjudicate:         {"adjudicate", "adjudicate"},
	ActGuideRead:          {"guide.read", "read the guide"},
	ActGuideSet:           {"guide.set", "set the guide"},
	ActSettingsRead:       {"settings.read", "read the settings"},
	ActSettingsSet:        {"settings.set", "change settings"},
	ActUsersRead:          {"users.read", "list users"},
	ActUsersManage:        {"users.manage", "add users or change roles"},
	ActExport:             {"export", "export a dataset version"},
	ActDatasetRead:        {"dataset.read", "read dataset versions"},
	ActScoreStore:         {"score.store", "score against the unexported gold"},
	ActScoreDataset:       {"score.dataset", "score against a dataset version"},
	ActDashboard:          {"dashboard", "open the dashboard"},
	ActAuditRead:          {"audit.read", "read the audit log"},
	ActMaintain:           {"maintain", "check or back up the database"},
}

// String is the action's name as the audit log records it.
func (a Action) String() string {
	if n, ok := actionNames[a]; ok {
		return n[0]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// who is a set of the kinds of actor an action is open to.
type who uint8

const (
	reviewers who = 1 << iota
	leads
	ci
	// nobody: no identity given. Only a local actor can be anonymous (an
	// SSH actor is always the key's user); trusted local mode keeps
	// working without --as for what reveals no one's answers and acts in
	// no one's name.
	nobody
)

// table is the action × role table: authorization is decided here and
// nowhere else.
var table = map[Action]who{
	ActImport:             leads | nobody,
	ActTracesRead:         reviewers | leads | nobody,
	ActSample:             leads | nobody,
	ActAssign:             leads, // recorded under the lead who decided it
	ActBatchesRead:        reviewers | leads | nobody,
	ActQueueRead:          reviewers | leads,
	ActLabelSubmit:        reviewers | leads,
	ActLabelReopen:        reviewers | leads,
	ActLabelsReadOwn:      reviewers | leads,
	ActLabelsReadAll:      leads,
	ActLabelsImport:       reviewers | leads,
	ActLabelsImportOthers: leads,
	ActStatusTotals:       reviewers | leads | nobody,
	ActStatusDetails:      leads,
	ActAdjudicate:         leads,
	ActGuideRead:          reviewers | leads | nobody,
	ActGuideSet:           leads,
	ActSettingsRead:       reviewers | leads | nobody,
	ActSettingsSet:        leads,
	ActUsersRead:          reviewers | leads | nobody,
	ActUsersManage:        leads, // and nobody while the project has no lead: App.AddUser
	ActExport:             leads,
	ActDatasetRead:        reviewers | leads | ci | nobody,
	ActScoreStore:         leads,
	ActScoreDataset:       reviewers | leads | ci | nobody,
	ActDashboard:          leads,
	ActAuditRead:          leads,
	// Locally, whoever can run goldtrace can copy the database file anyway
	// (trusted mode); over SSH a backup is a copy of everyone's labels.
	ActMaintain: leads | nobody,
}

// SeesDatabase reports whether the errors actor is shown may say where
// the project's database lives (its file path, or its host, port and
// name). Locally they may: they named it (--db) and hold the file. Over
// SSH only those who may maintain the database (ActMaintain: a lead, who
// runs check and backup there, whose check names it, and whom a reviewer
// is told to tell); a reviewer or ci key is told what happened and what to
// do without it (Shown).
func (a Actor) SeesDatabase() bool {
	return a.Source != SourceSSH || Authorize(a, ActMaintain) == nil
}

func (a Actor) kind() who {
	switch {
	case a.Anonymous():
		return nobody
	case a.Role == RoleLead:
		return leads
	case a.Role == RoleReviewer:
		return reviewers
	case a.Role == RoleCI:
		return ci
	}
	return 0
}

// ErrForbidden is what a refusal wraps (errors.Is). What an actor may not
// see is refused as not found instead (ErrNotFound), so that a refusal
// does not tell that the thing exists.
var ErrForbidden = errors.New("not allowed")

// DeniedError says who was refused what, and who may do it.
type DeniedError struct {
	Actor  Actor
	Action Action
}

func (e *DeniedError) Error() string {
	may, does := e.Action.allowedTo(), actionNames[e.Action][1]
	if does == "" {
		does = e.Action.String()
	}
	if e.Actor.Anonymous() {
		flag := "--as NAME"
		if may == "lead" {
			flag = "--as LEAD"
		}
		return fmt.Sprintf("only a %s may %s: %s is required", may, does, flag)
	}
	who := e.Actor.Name
	if e.Actor.Source == SourceSSH {
		who = e.Actor.String()
	}
	return fmt.Sprintf("%s is a %s; only a %s may %s", who, e.Actor.Role, may, does)
}

func (e *DeniedError) Unwrap() error { return ErrForbidden }

// allowedTo names the roles an action is open to: "lead", "reviewer or lead".
func (a Action) allowedTo() string {
	w := table[a]
	var roles []string
	for _, r := range []struct {
		w    who
		name string
	}{{reviewers, "reviewer"}, {leads, "lead"}, {ci, "ci"}} {
		if w&r.w != 0 {
			roles = append(roles, r.name)
		}
	}
	if len(roles) == 0 {
		return "nobody"
	}
	return strings.Join(roles, " or ")
}

// roles are the roles action is open to, as the store names them: what a
// store write asserts for it (store.UserCheck.Roles).
func (a Action) roles() []string {
	var out []string
	for _, r := range []Role{RoleReviewer, RoleLead, RoleCI} {
		if Authorize(Actor{Name: "-", Role: r}, a) == nil {
			out = append(out, string(r))
		}
	}
	return out
}

// Authorize decides whether actor may perform action: nil, or a
// *DeniedError. An unknown role or action is refused.
func Authorize(actor Actor, action Action) error {
	if k := actor.kind(); k != 0 && table[action]&k != 0 {
		return nil
	}
	return &DeniedError{Actor: actor, Action: action}
}
