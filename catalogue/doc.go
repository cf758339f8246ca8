// Package catalogue reads tool catalogues (OpenAI, flat and MCP tools/list
// shapes) and finds where gold labeled against one catalogue has gone stale
// under another: tools removed or renamed, expected arguments that no
// longer validate, fields newly required, enum values gone.
package catalogue
