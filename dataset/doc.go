// Package dataset holds the gold record format, versioned byte-reproducible
// exports with their manifest, diffs between versions, and verification.
//
// Decisions beyond the format docs/formats.md describes:
//
//   - Canonical record (EncodeRecord): fixed key order, compact, no HTML
//     escaping, "\n" line ends, lines sorted by id; every JSON value inside
//     is trace.Canonical. Every expected call carries a rule for each of its
//     arguments with "match" spelled out ("exact" unless the gold says
//     otherwise); "optional" and "any_of" appear only when set; "arg_rules"
//     is omitted only for a call with no arguments and no rules. Empty lists
//     are [] and trace metadata is {} — never null. expected_tool,
//     expected_args are null and expected_calls [] for no call; adjudicator is
//     null for agreed gold. Observed calls whose arguments did not parse keep
//     the verbatim text as a JSON string and "unparseable":true.
//   - The manifest adds "file" (the JSONL it describes), "selection" (the
//     --batch/--where filters) and "record_hashes" (id → first 16 hex of the
//     sha256 of the line), so verify names the line that changed even when it
//     is still a valid record. "changes" of v1 lists every item as added.
//     "agreement" counts agreed/adjudicated from the gold statuses; the
//     reviewers' percent agreement and kappa are handed in by the caller (null
//     when not computed).
//   - A version is built from what the store holds without decoding it where
//     the stored bytes already are the record's (Builder; tests check the
//     two ways agree), and never joined in memory: records keep the shared
//     conversation and tools as parts (Line.Parts), and the file is written
//     and compressed from them. goldtrace export writes the data files
//     first and the manifest last, and puts them in place only once the
//     version is stored.
//   - Verify is strict: unknown fields, missing fields, and any byte that
//     differs from the canonical encoding of the record the line holds are
//     errors. A dataset file is an artifact goldtrace wrote and hashed;
//     anything else in it is a change.
package dataset
