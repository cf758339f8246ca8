package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// ReadRecords reads a dataset's gold records from in (name is what errors
// cite: "NAME:LINE: what"). Records come back without Input.Messages
// (scoring never reads the conversation) and records with identical
// available_tools or metadata share one copy, so memory stays flat on large
// datasets. withHashes also returns each record's input hash (sha256 of its
// context and tools, as trace.InputHash computes it). progress, when set, is
// called now and then with the lines read so far.
func ReadRecords(ctx context.Context, in io.Reader, name string, withHashes bool, progress func(lines int)) ([]Record, []string, error) {
	var recs []Record
	var hashes []string
	ids := map[string]int{}
	interner := score.NewInterner()
	err := ScanLines(ctx, in, name, progress, func(line int, data []byte) error {
		var g ScoringRecord
		if err := json.Unmarshal(data, &g); err != nil {
			return fmt.Errorf("not a gold record: %v", err)
		}
		if err := score.CheckGoldLine(data); err != nil {
			return err
		}
		if g.ID == "" {
			return errors.New("gold record without id")
		}
		if prev, dup := ids[g.ID]; dup {
			return fmt.Errorf("duplicate id %s (first on line %d)", g.ID, prev)
		}
		ids[g.ID] = line
		r, err := g.Record(interner)
		if err != nil {
			return err
		}
		if err := checkExpectedCalls(&r); err != nil {
			return err
		}
		if withHashes {
			var msgs []trace.Message
			if len(g.Input.Messages) > 0 {
				if err := json.Unmarshal(g.Input.Messages, &msgs); err != nil {
					return fmt.Errorf("input.messages: %v", err)
				}
			}
			hashes = append(hashes, trace.InputHash(msgs, r.AvailableTools))
		}
		recs = append(recs, r)
		return nil
	})
	return recs, hashes, err
}

// RecordContext is what an LLM judge reads of a gold record besides what
// scoring keeps: the conversation and the reviewers' rationale.
type RecordContext struct {
	Messages  []trace.Message
	Rationale string
}

// ReadRecordContexts reads each gold record's conversation and rationale,
// by id.
func ReadRecordContexts(ctx context.Context, in io.Reader, name string, progress func(lines int)) (map[string]RecordContext, error) {
	out := map[string]RecordContext{}
	err := ScanLines(ctx, in, name, progress, func(line int, data []byte) error {
		var r struct {
			ID    string `json:"id"`
			Input struct {
				Messages []trace.Message `json:"messages"`
			} `json:"input"`
			Rationale string `json:"rationale"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("not a gold record: %v", err)
		}
		out[r.ID] = RecordContext{Messages: r.Input.Messages, Rationale: r.Rationale}
		return nil
	})
	return out, err
}

// checkExpectedCalls rejects gold whose expected calls have no tool, whose
// arguments are not JSON objects, or whose argument rules do not hold.
func checkExpectedCalls(r *Record) error {
	lists := append([][]score.ExpectedCall{r.ExpectedCalls}, r.Acceptable...)
	for _, list := range lists {
		for _, c := range list {
			if c.Tool == "" {
				return errors.New("expected call without a tool name")
			}
			args := bytes.TrimSpace(c.Args)
			if len(args) > 0 && string(args) != "null" && args[0] != '{' {
				return fmt.Errorf("expected call %s: args must be a JSON object", c.Tool)
			}
			if err := c.CheckArgRules(); err != nil {
				return fmt.Errorf("expected call %w", err)
			}
		}
	}
	return nil
}

// ScanLines calls fn for every non-blank line of in; an error from fn
// becomes "NAME:LINE: error". progress, when set, is called every 8192
// lines with the line number.
func ScanLines(ctx context.Context, in io.Reader, name string, progress func(lines int), fn func(line int, data []byte) error) error {
	br := bufio.NewReaderSize(in, 1<<16)
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(data)) > 0 {
			if line%8192 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
				if progress != nil {
					progress(line)
				}
			}
			if ferr := fn(line, data); ferr != nil {
				return fmt.Errorf("%s:%d: %w", name, line, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}
