//go:build !linux

package faults

import (
	"errors"
	"os"
	"os/exec"
)

func openPTY(cols, rows int) (master, slave *os.File, err error) {
	return nil, nil, errors.New("the fault suite opens pseudo-terminals on Linux only")
}

func setControllingTTY(cmd *exec.Cmd) {}

var hangup = os.Interrupt
