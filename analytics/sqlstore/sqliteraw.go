package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The pure-Go SQLite driver (glebarez/go-sqlite) prepares a statement again
// at every execution and finalizes it after, so database/sql's prepared
// statements save nothing. Parsing and compiling the literal INSERTs was
// most of a batch's cost (the profile's prepareV2), so SQLite batches go
// through the connection's own SQLite handle instead: one single-row INSERT
// prepared once per batch, then per row its values bound, one step and a
// reset. The handle is read from the driver connection's unexported fields
// (sqliteHandle); a driver without them gets the literal statements
// (sqliteStatement) through the same connection and transaction.

// sqliteHandle returns the sqlite3* and the C thread state of a driver
// connection of glebarez/go-sqlite (its fields db uintptr and tls
// *libc.TLS), and false for any other connection.
func sqliteHandle(dc any) (db uintptr, tls *libc.TLS, ok bool) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, nil, false
	}
	fdb, ftls := v.Elem().FieldByName("db"), v.Elem().FieldByName("tls")
	if !fdb.IsValid() || fdb.Kind() != reflect.Uintptr || !ftls.IsValid() || ftls.Type() != reflect.TypeFor[*libc.TLS]() {
		return 0, nil, false
	}
	db, tls = uintptr(fdb.Uint()), (*libc.TLS)(ftls.UnsafePointer())
	return db, tls, db != 0 && tls != nil
}

// inTransaction reports whether the SQLite connection dc is inside a
// transaction (not in autocommit mode); false when its handle is not
// reachable.
func inTransaction(dc any) bool {
	db, tls, ok := sqliteHandle(dc)
	return ok && sqlite3.Xsqlite3_get_autocommit(tls, db) == 0
}

// sqliteRowStatement is the single-row INSERT whose parameters rawRows binds.
func (ins *inserter) sqliteRowStatement() string {
	ph := make([]string, len(ins.cols))
	for i := range ph {
		ph[i] = "?" + strconv.Itoa(i+1)
	}
	return ins.head() + "VALUES (" + strings.Join(ph, ", ") + ")" + onConflict
}

// sqliteInsert writes rows in one transaction on one driver connection: by
// rawRows when raw and the connection gives its handle, else as literal
// statements.
//
// A failure that leaves the connection inside a transaction (a rollback
// that failed, a BEGIN refused because one is open) comes back also as
// driver.ErrBadConn, so database/sql and writeConn drop the connection
// (closing it rolls back) instead of keeping one whose every later BEGIN
// fails while it holds the database's write lock.
func (ins *inserter) sqliteInsert(ctx context.Context, dc any, rows reflect.Value, raw bool) (err error) {
	beginner, ok1 := dc.(driver.ConnBeginTx)
	execer, ok2 := dc.(driver.ExecerContext)
	if !ok1 || !ok2 {
		return fmt.Errorf("sqlite connection %T cannot begin or exec", dc)
	}
	tx, err := beginner.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		if inTransaction(dc) {
			err = errors.Join(err, driver.ErrBadConn)
		}
		return err
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		rerr := tx.Rollback()
		if _, _, ok := sqliteHandle(dc); inTransaction(dc) || (!ok && rerr != nil) {
			err = errors.Join(err, driver.ErrBadConn)
		}
	}()
	if db, tls, ok := sqliteHandle(dc); raw && ok {
		err = ins.rawRows(ctx, db, tls, rows)
	} else {
		err = ins.literalRows(ctx, execer, rows)
	}
	if err != nil {
		return err
	}
	// A failed COMMIT (a deferred constraint, SQLITE_BUSY) can leave the
	// transaction open: the deferred rollback ends it, else the pooled
	// connection would refuse every later BEGIN.
	if err := tx.Commit(); err != nil {
		return err
	}
	committed = true
	return nil
}

// literalRows executes the literal INSERTs of rows, sqliteRows at a time.
func (ins *inserter) literalRows(ctx context.Context, execer driver.ExecerContext, rows reflect.Value) error {
	bp := sqlBufs.Get().(*[]byte)
	defer sqlBufs.Put(bp)
	for i, n := 0, rows.Len(); i < n; i += sqliteRows {
		q := ins.sqliteStatement((*bp)[:0], rows, i, min(i+sqliteRows, n))
		*bp = q
		if _, err := execer.ExecContext(ctx, string(q), nil); err != nil {
			return err
		}
	}
	return nil
}

// rawRowsCheckEvery is how many rows rawRows inserts between looks at ctx.
const rawRowsCheckEvery = 64

// rawRows inserts rows through one prepared single-row INSERT on the
// connection's handle. Text values are copied into one C buffer per row and
// bound without a copy (SQLITE_STATIC): the next row rebinds every
// parameter before the buffer is overwritten and stepped again. Values bind
// as the driver binds them: strings as text (NULs kept), integers and
// booleans as integers, floats as doubles, times as text in the driver's
// format.
func (ins *inserter) rawRows(ctx context.Context, db uintptr, tls *libc.TLS, rows reflect.Value) error {
	zsql, err := libc.CString(ins.sqliteRowStatement())
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, zsql)
	pp := libc.Xmalloc(tls, uint64(unsafe.Sizeof(uintptr(0))))
	if pp == 0 {
		return errors.New("sqlite: out of memory")
	}
	defer libc.Xfree(tls, pp)
	// Freed after the finalize (deferred below): the statement's last
	// bindings point into it until then.
	var cbuf cBuffer
	defer cbuf.free(tls)
	if rc := sqlite3.Xsqlite3_prepare_v3(tls, db, zsql, -1, 0, pp, 0); rc != sqlite3.SQLITE_OK {
		return sqliteError(tls, db, "prepare", rc)
	}
	st := *(*uintptr)(cPtr(pp))
	defer sqlite3.Xsqlite3_finalize(tls, st)
	var tb [64]byte
	for r, n := 0, rows.Len(); r < n; r++ {
		if r%rawRowsCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := rows.Index(r)
		if err := cbuf.reserve(tls, ins.textBytes(row)); err != nil {
			return err
		}
		off := 0
		text := func(i int32, s []byte) int32 {
			p, ok := cbuf.put(off, s)
			if !ok {
				// Never bind a length beyond what was copied: SQLite
				// would read past the buffer.
				return sqlite3.SQLITE_TOOBIG
			}
			off += len(s)
			return sqlite3.Xsqlite3_bind_text(tls, st, i, p, int32(len(s)), 0)
		}
		for c, f := range ins.fields {
			v, i := row.Field(f), int32(c+1)
			var rc int32
			switch v.Kind() {
			case reflect.String:
				rc = text(i, unsafe.Slice(unsafe.StringData(v.String()), v.Len()))
			case reflect.Int, reflect.Int64:
				rc = sqlite3.Xsqlite3_bind_int64(tls, st, i, v.Int())
			case reflect.Bool:
				b := int64(0)
				if v.Bool() {
					b = 1
				}
				rc = sqlite3.Xsqlite3_bind_int64(tls, st, i, b)
			case reflect.Float64:
				rc = sqlite3.Xsqlite3_bind_double(tls, st, i, v.Float())
			default:
				t := v.Addr().Interface().(*time.Time) // newInserter's column types; no boxing
				rc = text(i, appendSQLiteTime(tb[:0], *t))
			}
			if rc != sqlite3.SQLITE_OK {
				return fmt.Errorf("sqlite bind %s: %s (%d)", ins.cols[c], libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc)), rc)
			}
		}
		rc := sqlite3.Xsqlite3_step(tls, st)
		sqlite3.Xsqlite3_reset(tls, st)
		if rc != sqlite3.SQLITE_DONE {
			return sqliteError(tls, db, "insert", rc)
		}
	}
	return nil
}

// textBytes bounds the C buffer one row's text values need.
func (ins *inserter) textBytes(row reflect.Value) int {
	n := 0
	for _, f := range ins.fields {
		if v := row.Field(f); v.Kind() == reflect.String {
			n += v.Len()
		} else if v.Kind() == reflect.Struct {
			n += 64 // a formatted time
		}
	}
	return n
}

// sqliteError is SQLite's message for rc on db.
func sqliteError(tls *libc.TLS, db uintptr, what string, rc int32) error {
	return fmt.Errorf("sqlite %s: %s (%d)", what, libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db)), rc)
}

// cBuffer is C memory the text values of one row are bound from.
type cBuffer struct {
	p   uintptr
	cap int
}

// reserve makes the buffer hold at least n bytes (at least 1, so an empty
// text binds a non-NULL pointer).
func (b *cBuffer) reserve(tls *libc.TLS, n int) error {
	n = max(n, 1)
	if n <= b.cap {
		return nil
	}
	b.free(tls)
	n = max(n, 4<<10)
	if b.p = libc.Xmalloc(tls, uint64(n)); b.p == 0 {
		return errors.New("sqlite: out of memory")
	}
	b.cap = n
	return nil
}

// put copies s to offset off and returns its address, or false when s
// does not fit in what reserve made room for or is longer than a bind's
// int32 length.
func (b *cBuffer) put(off int, s []byte) (uintptr, bool) {
	if off < 0 || off > b.cap || len(s) > b.cap-off || len(s) > math.MaxInt32 {
		return 0, false
	}
	copy(unsafe.Slice((*byte)(cPtr(b.p)), b.cap)[off:], s)
	return b.p + uintptr(off), true
}

func (b *cBuffer) free(tls *libc.TLS) {
	if b.p != 0 {
		libc.Xfree(tls, b.p)
		b.p, b.cap = 0, 0
	}
}

// cPtr is p, an address of C memory (libc's allocator: outside the Go heap,
// so the collector neither moves nor frees it), as an unsafe.Pointer. It
// converts through p's own memory because vet's unsafeptr check, which is
// about addresses of Go memory held as integers, rejects the direct
// conversion.
func cPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// appendSQLiteTime appends t as t.AppendFormat(b, sqliteTime) does, written
// out for the UTC times the stores keep (the time.Format layout
// interpreter was a tenth of a row's binding); any other time goes
// through AppendFormat.
func appendSQLiteTime(b []byte, t time.Time) []byte {
	year := t.Year()
	if t.Location() != time.UTC || year < 0 || year > 9999 {
		return t.AppendFormat(b, sqliteTime)
	}
	_, month, day := t.Date()
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, ' ')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 {
		// .999999999: nine digits less their trailing zeros.
		digits := 9
		for ns%10 == 0 {
			ns /= 10
			digits--
		}
		b = append(b, '.')
		b = appendDigits(b, ns, digits)
	}
	return append(b, "+00:00"...)
}

// appendDigits appends v, 0 <= v < 10^width, in exactly width digits.
func appendDigits(b []byte, v, width int) []byte {
	var d [9]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, d[:width]...)
}
