package web

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
)

// reportStreamRows is how many groups may wait between the store and a
// slow client: the memory an export holds, whatever its number of groups.
const reportStreamRows = 256

// reportStream is the export of a whole report as the store reads it.
type reportStream struct {
	q      costQuery
	totals analytics.BreakdownRow
	log    *slog.Logger
}

// streamCostReport answers with q's whole report as CSV (an attachment) or
// JSON, written group by group as the Reader streams them: the process
// holds reportStreamRows groups at most. The totals and the first group
// are read before the status is sent, so a report that cannot be read
// answers with fail's error; a read that fails later cuts the body short
// (JSON then does not parse) and is logged.
func streamCostReport(c *fiber.Ctx, r analytics.Reader, orgID string, q costQuery, log *slog.Logger, fail func(*fiber.Ctx, error) error) error {
	ctx, cancel := context.WithCancel(c.UserContext())
	totals, err := reportTotals(ctx, r, orgID, q)
	if err != nil {
		cancel()
		return fail(c, err)
	}
	rows := make(chan analytics.BreakdownRow, reportStreamRows)
	done := make(chan error, 1)
	go func() {
		defer close(rows)
		done <- r.EachBreakdown(ctx, orgID, q.breakdownQuery(), func(row analytics.BreakdownRow) error {
			select {
			case rows <- row:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	first, ok := <-rows
	if !ok {
		if err := <-done; err != nil {
			cancel()
			return fail(c, err)
		}
		done <- nil
	}
	s := reportStream{q: q, totals: totals, log: log}
	if q.Format == "csv" {
		c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
		c.Set(fiber.HeaderContentDisposition, "attachment; filename="+q.filename())
	} else {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		src := &rowSource{first: first, hasFirst: ok, rows: rows, done: done}
		var err error
		if q.Format == "csv" {
			err = s.writeCSV(w, src)
		} else {
			err = s.writeJSON(w, src)
		}
		if src.err != nil {
			s.log.ErrorContext(ctx, "cost report export cut short", "err", src.err, "org_id", orgID, "group", q.Group)
		} else if err != nil {
			s.log.DebugContext(ctx, "cost report export: the client left", "err", err, "org_id", orgID)
		}
	})
	return nil
}

// rowSource hands the streamed groups to a writer, then the read's error.
type rowSource struct {
	first    analytics.BreakdownRow
	hasFirst bool
	rows     <-chan analytics.BreakdownRow
	done     <-chan error
	err      error
}

// next returns the next group; false after the last one.
func (r *rowSource) next() (analytics.BreakdownRow, bool) {
	if r.hasFirst {
		r.hasFirst = false
		return r.first, true
	}
	row, ok := <-r.rows
	return row, ok
}

// end returns the read's error, once next has returned false.
func (r *rowSource) end() error {
	r.err = <-r.done
	return r.err
}

// writeCSV writes the header row, then one row per group; a read that
// fails drops what is not yet written. The status and headers are gone by
// now; a failed write means the client left.
func (s reportStream) writeCSV(w *bufio.Writer, src *rowSource) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{s.q.Group}, costCSVHeader...)); err != nil {
		return err
	}
	if cw.Flush(); cw.Error() != nil {
		return cw.Error()
	}
	var line []byte
	for r, ok := src.next(); ok; r, ok = src.next() {
		line = appendCSVRecord(line[:0], r.Key, r)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	if err := src.end(); err != nil {
		return err
	}
	return w.Flush()
}

// writeJSON writes the report object, its rows one by one, then the
// totals; a read that fails leaves the object open.
func (s reportStream) writeJSON(w *bufio.Writer, src *rowSource) error {
	head, err := json.Marshal(map[string]string{"from": s.q.FromDate(), "to": s.q.ToDate(), "group": s.q.Group})
	if err != nil {
		return err
	}
	// {"from":...,"group":...,"to":...,"rows":[ ... ],"totals":{...}}
	if _, err := w.Write(append(head[:len(head)-1], `,"rows":[`...)); err != nil {
		return err
	}
	sep := ""
	for r, ok := src.next(); ok; r, ok = src.next() {
		raw, err := json.Marshal(keyedRow(r))
		if err != nil {
			return err
		}
		if _, err := w.WriteString(sep); err != nil {
			return err
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
		sep = ","
	}
	if err := src.end(); err != nil {
		return err
	}
	totals, err := json.Marshal(viewCostRow(s.totals))
	if err != nil {
		return err
	}
	if _, err := w.WriteString(`],"totals":`); err != nil {
		return err
	}
	if _, err := w.Write(totals); err != nil {
		return err
	}
	if err := w.WriteByte('}'); err != nil {
		return err
	}
	return w.Flush()
}
