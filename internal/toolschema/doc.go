// Package toolschema checks JSON values against the JSON Schema that tool
// definitions use: the assertions of draft 2020-12 (the default), 2019-09,
// draft-07 and draft-06 that decide whether a value is valid, with $ref to
// places in the same document. It is goldtrace's replacement for a general
// JSON Schema library, whose metaschemas took milliseconds to compile at
// every start of the binary; what it leaves out, and where it differs, is
// in docs/json-schema.md.
//
// Compile refuses what a general validator would refuse (a schema the
// metaschema rejects, a pattern Go's regexp cannot compile, a $ref it
// cannot resolve) and what it does not support; the caller then enforces
// nothing. Work is bounded: a schema is at most MaxNodes subschemas nested
// at most MaxDepth deep with at most MaxPatternBytes of patterns, and one
// Validate call evaluates at most MaxSteps subschemas and reports at most
// MaxErrors errors.
package toolschema
