// Package source reads traces from where production systems keep them
// beyond local JSON files: Parquet exports of Langfuse (observations) and
// LangSmith (runs), on disk or in S3-compatible object storage, and Phoenix's
// PostgreSQL database. It samples them in two passes: the first reads only
// the cheap columns candidate selection needs (ids, timestamps, tool names,
// metadata asked for) — for Phoenix, one SQL query that also orders and
// limits them —, the second only the chosen rows' message and tool columns.
// The sampling key is defined in docs/sampling.md.
package source
