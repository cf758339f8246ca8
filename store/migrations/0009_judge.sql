-- The LLM judge's verdict cache (issue 14): one validated answer per
-- (endpoint host, model, prompt template sha256, kind, input sha256), so a
-- rerun sends no request and gives the same numbers. Only validated answers
-- are stored, each by one INSERT: a row is whole or absent.
CREATE TABLE judge_verdicts (
	endpoint        TEXT NOT NULL,
	model           TEXT NOT NULL,
	template_sha256 TEXT NOT NULL,
	kind            TEXT NOT NULL CHECK (kind IN ('args', 'selection', 'quality', 'predict')),
	input_sha256    TEXT NOT NULL CHECK (length(input_sha256) = 64),
	verdict         TEXT NOT NULL CHECK (json_valid(verdict)),
	created_at      TEXT NOT NULL,
	PRIMARY KEY (endpoint, model, template_sha256, kind, input_sha256)
) STRICT, WITHOUT ROWID;

-- Each `goldtrace judge calibrate` run's summary, newest shown on the
-- lead's dashboard.
CREATE TABLE judge_calibrations (
	id            INTEGER PRIMARY KEY,
	created_at    TEXT NOT NULL,
	gold          TEXT NOT NULL,
	kind          TEXT NOT NULL CHECK (kind IN ('args', 'selection', 'quality')),
	model         TEXT NOT NULL,
	endpoint      TEXT NOT NULL,
	prompt_sha256 TEXT NOT NULL,
	summary       TEXT NOT NULL CHECK (json_valid(summary))
) STRICT;
