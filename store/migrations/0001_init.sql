-- goldtrace schema, version 1. Shipped migrations are never edited: add a new
-- numbered file instead.

CREATE TABLE users (
    name       TEXT PRIMARY KEY,
    role       TEXT NOT NULL CHECK (role IN ('reviewer', 'lead')),
    created_at TEXT NOT NULL
) STRICT;

-- Tool definitions, deduplicated by the sha256 of their canonical JSON.
CREATE TABLE tools (
    hash        TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    parameters  TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE traces (
    id           TEXT PRIMARY KEY,
    ts           TEXT NOT NULL DEFAULT '',      -- RFC 3339, '' when unknown
    ts_unix      INTEGER,                       -- seconds, NULL when unknown
    content_hash TEXT NOT NULL,
    metadata     TEXT NOT NULL DEFAULT '{}',    -- JSON object of strings
    messages     TEXT NOT NULL,                 -- JSON array of trace.Message
    source       TEXT NOT NULL DEFAULT '',      -- file the trace came from
    imported_at  TEXT NOT NULL
) STRICT;
CREATE INDEX traces_content_hash ON traces(content_hash);
CREATE INDEX traces_ts ON traces(ts_unix);

CREATE TABLE trace_tools (
    trace_id  TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    tool_hash TEXT NOT NULL REFERENCES tools(hash),
    PRIMARY KEY (trace_id, position)
) STRICT;

-- Trace metadata, one row per key, for stratifying and filtering by meta.NAME.
CREATE TABLE trace_meta (
    trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (trace_id, key)
) STRICT;
CREATE INDEX trace_meta_kv ON trace_meta(key, value);

-- Decision points. The context is derived from the trace (messages before
-- turn), so only what sampling and scoring need is stored here.
CREATE TABLE items (
    id          TEXT PRIMARY KEY,
    trace_id    TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    turn        INTEGER NOT NULL,
    input_hash  TEXT NOT NULL,
    observed    TEXT NOT NULL DEFAULT '[]',     -- JSON array of trace.Call
    first_tool  TEXT NOT NULL,                  -- '(none)' when no call
    n_calls     INTEGER NOT NULL,
    ts_unix     INTEGER,
    status      TEXT NOT NULL DEFAULT 'new'
                CHECK (status IN ('new', 'sampled', 'labeling', 'agreed', 'disputed', 'adjudicated')),
    updated_at  TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX items_trace ON items(trace_id, turn);
CREATE INDEX items_input_hash ON items(input_hash);
CREATE INDEX items_first_tool ON items(first_tool);
CREATE INDEX items_status ON items(status);

CREATE TABLE batches (
    name       TEXT PRIMARY KEY,
    seed       INTEGER NOT NULL,
    per_item   INTEGER NOT NULL CHECK (per_item >= 1),
    params     TEXT NOT NULL DEFAULT '{}',      -- JSON of the sampling flags
    created_by TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE batch_items (
    batch    TEXT NOT NULL REFERENCES batches(name),
    item_id  TEXT NOT NULL REFERENCES items(id),
    position INTEGER NOT NULL,                  -- sample order
    stratum  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (batch, item_id)
) STRICT;
CREATE INDEX batch_items_item ON batch_items(item_id);

-- One reviewer's duty to label one item.
CREATE TABLE assignments (
    item_id     TEXT NOT NULL REFERENCES items(id),
    reviewer    TEXT NOT NULL REFERENCES users(name),
    batch       TEXT NOT NULL REFERENCES batches(name),
    position    INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'draft', 'submitted', 'skipped')),
    skip_reason TEXT NOT NULL DEFAULT '',
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (item_id, reviewer)
) STRICT;
CREATE INDEX assignments_reviewer ON assignments(reviewer, status, position);

-- Autosaved, unsubmitted work: the label form as the reviewer left it.
CREATE TABLE drafts (
    item_id    TEXT NOT NULL,
    reviewer   TEXT NOT NULL,
    body       TEXT NOT NULL,                   -- JSON, owned by the TUI
    seconds    INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (item_id, reviewer),
    FOREIGN KEY (item_id, reviewer) REFERENCES assignments(item_id, reviewer)
) STRICT;

-- Submitted labels (docs/formats.md, "Labels").
CREATE TABLE labels (
    item_id       TEXT NOT NULL,
    reviewer      TEXT NOT NULL,
    decision      TEXT NOT NULL CHECK (decision IN ('call', 'no_call')),
    calls         TEXT NOT NULL DEFAULT '[]',   -- JSON array of {tool, args}
    rationale     TEXT NOT NULL DEFAULT '',
    guide_version TEXT NOT NULL DEFAULT '',
    seconds       INTEGER NOT NULL DEFAULT 0,
    saw_observed  INTEGER NOT NULL DEFAULT 0 CHECK (saw_observed IN (0, 1)),
    submitted_at  TEXT NOT NULL,
    PRIMARY KEY (item_id, reviewer),
    FOREIGN KEY (item_id, reviewer) REFERENCES assignments(item_id, reviewer)
) STRICT;

-- Why an item is disputed: the kinds and their details, from review.Compare.
CREATE TABLE disputes (
    item_id    TEXT PRIMARY KEY REFERENCES items(id),
    kinds      TEXT NOT NULL,                   -- JSON array of kind names
    detail     TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
) STRICT;

-- The current gold answer of an agreed or adjudicated item.
CREATE TABLE gold (
    item_id       TEXT PRIMARY KEY REFERENCES items(id),
    status        TEXT NOT NULL CHECK (status IN ('agreed', 'adjudicated')),
    decision      TEXT NOT NULL CHECK (decision IN ('call', 'no_call')),
    calls         TEXT NOT NULL DEFAULT '[]',   -- JSON array of {tool, args, arg_rules}
    acceptable    TEXT NOT NULL DEFAULT '[]',   -- JSON array of call lists
    rationale     TEXT NOT NULL DEFAULT '',
    reviewers     TEXT NOT NULL DEFAULT '[]',   -- JSON array of names
    adjudicator   TEXT NOT NULL DEFAULT '',
    guide_version TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL DEFAULT '',
    updated_at    TEXT NOT NULL
) STRICT;

-- Every lead decision, in order: the audit trail of adjudication.
CREATE TABLE adjudications (
    id         INTEGER PRIMARY KEY,
    item_id    TEXT NOT NULL REFERENCES items(id),
    lead       TEXT NOT NULL REFERENCES users(name),
    action     TEXT NOT NULL CHECK (action IN ('pick', 'merge', 'both_acceptable', 'rules', 'send_back', 'accept')),
    reason     TEXT NOT NULL,
    payload    TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX adjudications_item ON adjudications(item_id);

-- Notes on items: sent back to reviewers, or proposing a guide change.
CREATE TABLE notes (
    id         INTEGER PRIMARY KEY,
    item_id    TEXT NOT NULL REFERENCES items(id),
    author     TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('send_back', 'guide_proposal', 'comment')),
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE guides (
    id         TEXT PRIMARY KEY,                -- g_ + 12 hex of sha256(body)
    body       TEXT NOT NULL,
    author     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    seq        INTEGER NOT NULL UNIQUE           -- order of setting; the highest is in force
) STRICT;

-- Exported dataset versions: immutable once written (see triggers).
CREATE TABLE datasets (
    name           TEXT NOT NULL,
    version        INTEGER NOT NULL CHECK (version >= 1),
    parent_version INTEGER,
    created_at     TEXT NOT NULL,
    created_by     TEXT NOT NULL DEFAULT '',
    message        TEXT NOT NULL DEFAULT '',
    sha256         TEXT NOT NULL,
    count          INTEGER NOT NULL,
    manifest       TEXT NOT NULL,               -- the manifest JSON, as written
    content        BLOB NOT NULL,               -- the JSONL bytes, as written
    PRIMARY KEY (name, version)
) STRICT;

CREATE TABLE dataset_items (
    name        TEXT NOT NULL,
    version     INTEGER NOT NULL,
    item_id     TEXT NOT NULL,
    record_hash TEXT NOT NULL,                  -- sha256 of the gold record line
    PRIMARY KEY (name, version, item_id),
    FOREIGN KEY (name, version) REFERENCES datasets(name, version)
) STRICT;

CREATE TRIGGER datasets_no_update BEFORE UPDATE ON datasets
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER datasets_no_delete BEFORE DELETE ON datasets
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be deleted'); END;
CREATE TRIGGER dataset_items_no_update BEFORE UPDATE ON dataset_items
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER dataset_items_no_delete BEFORE DELETE ON dataset_items
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be deleted'); END;
