package app

import "github.com/goldtrace/goldtrace/store"

// The records app's methods take and return. They are the store's rows,
// named here so that the front ends (cmd/goldtrace, tui, server) speak to
// app alone and never import the store: what a front end may do with the
// project is what app offers it.

// Reads: status, queues, items, users, audit, versions, imports.
type (
	// CopiedTable is how many rows of a table goldtrace copy wrote.
	CopiedTable      = store.CopiedTable
	Status           = store.Status
	StatusQuery      = store.StatusQuery
	BatchProgress    = store.Progress
	ItemCounts       = store.ItemCounts
	ItemRow          = store.ItemRow
	BatchSummary     = store.BatchSummary
	BatchSample      = store.BatchSample
	GoldFilter       = store.GoldFilter
	Dispute          = store.Dispute
	DisputeFilter    = store.DisputeFilter
	Note             = store.Note
	Resolution       = store.Resolution
	GuideVersion     = store.GuideVersion
	User             = store.User
	UserKey          = store.UserKey
	Release          = store.Release
	ReleaseRequest   = store.ReleaseRequest
	AuditFilter      = store.AuditFilter
	AuditEntry       = store.AuditEntry
	LabelFilter      = store.LabelFilter
	DatasetVersion   = store.DatasetVersion
	ImportProgress   = store.ImportProgress
	ImportResult     = store.ImportResult
	JudgeCalibration = store.JudgeCalibration
	// Problem is one finding of goldtrace check.
	Problem = store.Problem
	// DBOptions say how CheckDatabase opens the database.
	DBOptions = store.Options
)

// Views of Status.
const (
	ViewLead     = store.ViewLead
	ViewReviewer = store.ViewReviewer
)

// Assignment states, as Progress counts them.
const (
	AssignPending   = store.AssignPending
	AssignDraft     = store.AssignDraft
	AssignSubmitted = store.AssignSubmitted
	AssignSkipped   = store.AssignSkipped
)

// Kinds of a lead's note on an item.
const (
	NoteSendBack = store.NoteSendBack
	NoteComment  = store.NoteComment
)

// Failures a front end tells apart (errors.Is): a write that lost a race
// or broke a rule, a database too busy, full or gone to answer.
var (
	ErrConflict    = store.ErrConflict
	ErrBusy        = store.ErrBusy
	ErrDiskFull    = store.ErrDiskFull
	ErrUnavailable = store.ErrUnavailable
)
