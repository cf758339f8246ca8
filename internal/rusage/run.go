package rusage

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Run runs cmd and returns its peak resident memory in bytes. Where /proc
// says (Linux) it is the process's own high-water mark (VmHWM, which starts
// afresh at exec), sampled every 20 ms: getrusage's figure for a child also
// counts the memory of the parent it was forked from, which is wrong for a
// benchmark that holds data in memory (an in-process S3 server). Elsewhere
// it is PeakRSS.
func Run(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var hwm int64
		path := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v := vmHWM(path); v > hwm {
				hwm = v
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	hwm := <-peak
	if hwm == 0 && cmd.ProcessState != nil {
		hwm = PeakRSS(cmd.ProcessState)
	}
	return hwm, err
}

// vmHWM reads VmHWM from a /proc status file (0 when it cannot).
func vmHWM(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
