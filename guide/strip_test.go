package guide

import "github.com/charmbracelet/x/ansi"

func stripped(s string) string { return ansi.Strip(s) }
