package analytics

import "time"

// collect is the batcher: it takes rows from the queue in groups, writes
// each group to the journal (one write per group, at most CommitWindow
// after the group's first row arrived; the journal's syncer fsyncs behind
// it), adds it to the batch being built and pushes each full (or
// FlushInterval old) batch onto the backlog. It never waits for the store,
// so a slow store fills the spill, not the queue.
func (w *Writer) collect() {
	defer close(w.collectorDone)
	q := w.backlog.Load()
	tick := time.NewTicker(w.cfg.FlushInterval)
	defer tick.Stop()
	window := time.NewTimer(w.cfg.CommitWindow)
	window.Stop()
	cur, group := w.newBatch(), &batch{}
	commit := func() {
		window.Stop()
		if group.rows() == 0 {
			return
		}
		w.journalGroup(group)
		cur.Attempts = append(cur.Attempts, group.Attempts...)
		cur.Requests = append(cur.Requests, group.Requests...)
		group.Attempts, group.Requests = group.Attempts[:0], group.Requests[:0]
		w.open.Store(int64(cur.rows()))
		if cur.rows() >= w.cfg.BatchSize {
			w.flush(q, cur)
			cur = w.newBatch()
		}
	}
	add := func(it item) {
		if group.rows() == 0 && w.jr != nil {
			window.Reset(w.cfg.CommitWindow)
		}
		take(group, it)
		w.open.Store(int64(cur.rows() + group.rows()))
		// Without a journal a group is just the next row.
		if w.jr == nil || cur.rows()+group.rows() >= w.cfg.BatchSize {
			commit()
		}
	}
	for {
		select {
		case it := <-w.queue:
			add(it)
		case <-window.C:
			commit()
		case now := <-tick.C:
			if cur.rows() > 0 {
				w.flush(q, cur)
				cur = w.newBatch()
			}
			w.reportDrops(now)
		case <-w.stop:
			// Close marked the writer closed before closing stop, so no
			// row can enter the queue any more: drain it completely.
			for {
				select {
				case it := <-w.queue:
					add(it)
				default:
					commit()
					if cur.rows() > 0 {
						w.flush(q, cur)
					}
					return
				}
			}
		}
	}
}

// journalGroup commits g to the journal; on failure the rows stay in memory
// only (as without a journal), counted and logged once per run of failures.
func (w *Writer) journalGroup(g *batch) {
	if w.jr == nil {
		return
	}
	if err := w.jr.commit(g); err != nil {
		if w.journalErrors.Add(1); !w.journalFailing {
			w.log.ErrorContext(w.insertCtx, "analytics journal write failed; rows held in memory only", "rows", g.rows(), "err", err)
		}
		w.journalFailing = true
		return
	}
	w.journalFailing = false
	w.journaled.Add(int64(g.rows()))
}

// dropReportEvery bounds how often the batcher logs rows dropped by Record*.
const dropReportEvery = 10 * time.Second

// reportDrops logs, at most every dropReportEvery, how many rows were
// dropped since the last report; Record* itself never logs.
func (w *Writer) reportDrops(now time.Time) {
	if now.Sub(w.dropReportAt) < dropReportEvery {
		return
	}
	if n := w.dropped.Load(); n > w.dropReported {
		w.log.WarnContext(w.insertCtx, "analytics rows dropped", "rows", n-w.dropReported, "total", n)
		w.dropReported, w.dropReportAt = n, now
	}
}

// flush seals the batch's journal file and pushes it onto the backlog.
func (w *Writer) flush(q *backlog, b *batch) {
	w.open.Store(0)
	b.freshAttempts, b.freshRequests = true, true
	if w.jr != nil {
		b.journal = w.jr.seal()
	}
	n, err := q.push(b)
	if n > 0 {
		w.dropped.Add(int64(n))
		w.log.WarnContext(w.insertCtx, "analytics batch dropped", "rows", n, "err", err)
	}
}
