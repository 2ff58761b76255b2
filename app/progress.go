package app

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// progress shows how far a long command has come: on a terminal a bar
// redrawn in place, otherwise one line per tenth of each stage (and its
// end), so logs of CI runs show it advancing without a line per item.
type progress struct {
	w        io.Writer
	terminal bool
	stage    string
	shown    int // terminal: the bar's filled cells; lines: tenths printed
}

// newProgress writes to w; it draws a bar when w is a terminal.
func newProgress(w io.Writer) *progress {
	return &progress{w: w, terminal: isTerminal(w)}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const barWidth = 30

// update reports done of total in stage.
func (p *progress) update(stage string, done, total int) {
	if total <= 0 {
		return
	}
	if stage != p.stage {
		if p.terminal && p.stage != "" {
			fmt.Fprintln(p.w)
		}
		p.stage, p.shown = stage, -1
	}
	if p.terminal {
		cells := done * barWidth / total
		if cells == p.shown && done != total {
			return
		}
		p.shown = cells
		fmt.Fprintf(p.w, "\r%-8s [%s%s] %d/%d", stage, strings.Repeat("#", cells), strings.Repeat(".", barWidth-cells), done, total)
		if done == total {
			fmt.Fprintln(p.w)
			p.stage = ""
		}
		return
	}
	tenth := done * 10 / total
	if tenth == p.shown {
		return
	}
	p.shown = tenth
	fmt.Fprintf(p.w, "%s: %d/%d (%d%%)\n", stage, done, total, done*100/total)
}
