package app

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/store"
)

// TestRecordCalibrationIsAuthorizedAndAudited: a calibration run reaches the
// dashboard through app, recorded in the audit log under the actor; a run
// that judged nothing is not kept.
func TestRecordCalibrationIsAuthorizedAndAudited(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, _ := projectOn(t, engine)
		agree := 0.75
		run := CalibrationRun{Gold: "support@v1", Kind: "args", Model: "m-2025-01-01", Endpoint: "127.0.0.1", PromptSHA256: "abc",
			Summary: judge.CalibrationSummary{Threshold: 0.5, Partial: true}}
		run.Summary.Items, run.Summary.Agreement.Agreement = 4, &agree
		if err := a.RecordCalibration(ctx, actor(t, a, "carol"), run); err != nil {
			t.Fatal(err)
		}
		empty := run
		empty.Gold, empty.Summary.Items = "other@v1", 0
		if err := a.RecordCalibration(ctx, actor(t, a, "alice"), empty); err != nil {
			t.Fatal(err)
		}
		runs, err := st.JudgeCalibrations(ctx, 10)
		if err != nil || len(runs) != 1 || runs[0].Gold != "support@v1" {
			t.Fatalf("calibrations: %v %+v", err, runs)
		}
		var back judge.CalibrationSummary
		if err := json.Unmarshal(runs[0].Summary, &back); err != nil || back.Items != 4 || !back.Partial || back.Threshold != 0.5 || *back.Agreement.Agreement != agree {
			t.Fatalf("summary %s: %v %+v", runs[0].Summary, err, back)
		}
		log, err := st.AuditLog(ctx, store.AuditFilter{Action: ActScoreDataset.String()})
		if err != nil || len(log) != 1 || log[0].Actor != "carol" || log[0].Outcome != store.AuditOK || log[0].Object != "judge calibration args m-2025-01-01 against support@v1" {
			t.Fatalf("audit: %v %+v", err, log)
		}
		// A user removed since is refused, and nothing is kept.
		gone := Actor{Name: "zed", Role: RoleLead, Source: SourceLocal}
		if err := a.RecordCalibration(ctx, gone, run); err == nil {
			t.Fatal("a user who does not exist recorded a calibration")
		}
		if runs, _ := st.JudgeCalibrations(ctx, 10); len(runs) != 1 {
			t.Fatalf("%d calibrations after a refusal", len(runs))
		}
	})
}
