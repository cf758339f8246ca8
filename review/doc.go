// Package review holds reviewers' labels, their comparison into agreed or
// disputed items with dispute kinds, the gold answer they produce, and the
// agreement statistics (percent, Cohen's kappa, Krippendorff's alpha).
package review
