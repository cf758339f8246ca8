// Package guide is the labeling guide reviewers follow: markdown text kept
// as content-addressed versions, rendered for the terminal, with a section
// per tool that the label screen opens at.
package guide
