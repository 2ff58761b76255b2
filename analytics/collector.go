package analytics

import "time"

// collect is the batcher: it moves rows from the queue into batches and
// pushes each full (or FlushInterval old) batch onto the backlog. It never
// waits for the store, so a slow store fills the spill, not the queue.
func (w *Writer) collect() {
	defer close(w.collectorDone)
	q := w.backlog.Load()
	tick := time.NewTicker(w.cfg.FlushInterval)
	defer tick.Stop()
	cur := &batch{}
	add := func(it item) {
		if it.attempt != nil {
			cur.Attempts = append(cur.Attempts, *it.attempt)
		} else {
			cur.Requests = append(cur.Requests, *it.request)
		}
		w.open.Store(int64(cur.rows()))
		if cur.rows() >= w.cfg.BatchSize {
			w.flush(q, cur)
			cur = &batch{}
		}
	}
	for {
		select {
		case it := <-w.queue:
			add(it)
		case now := <-tick.C:
			if cur.rows() > 0 {
				w.flush(q, cur)
				cur = &batch{}
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
					if cur.rows() > 0 {
						w.flush(q, cur)
					}
					return
				}
			}
		}
	}
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

func (w *Writer) flush(q *backlog, b *batch) {
	w.open.Store(0)
	n, err := q.push(b)
	if n > 0 {
		w.dropped.Add(int64(n))
		w.log.WarnContext(w.insertCtx, "analytics batch dropped", "rows", n, "err", err)
	}
}
