package tui

import (
	"fmt"

	"github.com/goldtrace/goldtrace/app"
)

// calibrationParts is the header's judge line: none without a calibration.
func calibrationParts(s *Styles, c *app.DashboardCalibration) []string {
	if c == nil {
		return nil
	}
	pct := "n/a"
	if c.Agreement.Agreement != nil {
		pct = fmt.Sprintf("%.1f%%", *c.Agreement.Agreement*100)
	}
	kappa := "n/a"
	if c.Kappa != nil {
		kappa = fmt.Sprintf("%.2f", *c.Kappa)
	}
	parts := []string{
		s.Muted.Render("judge "+c.Kind+" ") + c.Model,
		pct + s.Muted.Render(" agree with "+c.Gold),
		s.Muted.Render("κ ") + kappa,
		s.Muted.Render("n ") + fmt.Sprint(c.Items),
	}
	if c.Partial {
		parts = append(parts, s.Muted.Render("partial"))
	}
	return parts
}
