// Package review holds reviewers' labels, their comparison into agreed or
// disputed items with dispute kinds, the gold answer they produce, and the
// agreement statistics (percent, Cohen's and Conger's kappa, Gwet's AC1,
// Krippendorff's alpha, bootstrap intervals, per-argument agreement).
package review
