package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// inserter writes rows of one table without gorm (which built each 16-row
// statement again for every chunk). On SQLite a batch is one transaction of
// one prepared single-row INSERT stepped per row on the connection's SQLite
// handle (sqliteraw.go), or, where the driver does not give its handle, of
// INSERTs of up to sqliteRows rows whose values are SQL literals. On Postgres it
// is one prepared statement of one array per column (INSERT ... SELECT FROM
// unnest(...)), whatever its size. A row whose event id is already stored is
// ignored.
type inserter struct {
	table    string
	cols     []string
	fields   []int          // struct field index of each column
	types    []reflect.Type // Go type of each column
	postgres bool
	// sqliteHead is SQLite's INSERT up to its first row's values.
	sqliteHead string
	mu         sync.Mutex
	pg         *sql.Stmt // Postgres's unnest INSERT, prepared on first use
}

// newInserter reads the columns of row's struct type from its gorm tags.
func newInserter(table string, row any, postgres bool) *inserter {
	ins := &inserter{table: table, postgres: postgres}
	t := reflect.TypeOf(row)
	for i := range t.NumField() {
		for _, part := range strings.Split(t.Field(i).Tag.Get("gorm"), ";") {
			if col, ok := strings.CutPrefix(part, "column:"); ok {
				ins.cols = append(ins.cols, col)
				ins.fields = append(ins.fields, i)
				ins.types = append(ins.types, t.Field(i).Type)
			}
		}
	}
	ins.sqliteHead = ins.head() + "VALUES "
	return ins
}

// pgArrayTypes is the Postgres array type of each Go column type.
var pgArrayTypes = map[reflect.Type]string{
	reflect.TypeFor[string]():    "text[]",
	reflect.TypeFor[time.Time](): "timestamptz[]",
	reflect.TypeFor[int64]():     "bigint[]",
	reflect.TypeFor[int]():       "integer[]",
	reflect.TypeFor[float64]():   "double precision[]",
	reflect.TypeFor[bool]():      "boolean[]",
}

// sqliteRows is the most rows of one SQLite INSERT. The pure-Go driver
// prepares (parses) a statement again at every execution and binds in time
// quadratic in its parameters, so SQLite batches carry their values as SQL
// literals (appendLiteral) in statements of up to this many rows: no bind,
// and the statement's fixed parse cost spread over the rows.
const sqliteRows = 64

// statement is Postgres's unnest INSERT, ignoring known event ids.
func (ins *inserter) statement() (string, error) {
	var b strings.Builder
	b.WriteString(ins.head() + "SELECT * FROM unnest(")
	for i, t := range ins.types {
		at, ok := pgArrayTypes[t]
		if !ok {
			return "", fmt.Errorf("no Postgres array type for column %s (%s)", ins.cols[i], t)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(i+1) + "::" + at)
	}
	b.WriteString(")" + onConflict)
	return b.String(), nil
}

// onConflict ends every INSERT: a row whose event id is stored is ignored.
const onConflict = " ON CONFLICT (event_id) DO NOTHING"

// head is the INSERT's start up to its values.
func (ins *inserter) head() string {
	return "INSERT INTO " + ins.table + " (" + strings.Join(ins.cols, ", ") + ") "
}

// prepared returns Postgres's statement, preparing it on first use (a failed
// prepare is retried by the next insert).
func (ins *inserter) prepared(ctx context.Context, db *sql.DB) (*sql.Stmt, error) {
	ins.mu.Lock()
	defer ins.mu.Unlock()
	if ins.pg != nil {
		return ins.pg, nil
	}
	q, err := ins.statement()
	if err != nil {
		return nil, err
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %s insert: %w", ins.table, err)
	}
	ins.pg = st
	return st, nil
}

// insert writes rows (a slice of the row struct): on Postgres in one
// statement, on SQLite in one transaction on one connection (sqliteInsert).
func (ins *inserter) insert(ctx context.Context, gdb *gorm.DB, wc *writeConn, rows any) error {
	return ins.insertVia(ctx, gdb, wc, rows, true)
}

// insertVia is insert; raw false makes SQLite use the literal statements
// even where the connection's handle is reachable (for tests).
func (ins *inserter) insertVia(ctx context.Context, gdb *gorm.DB, wc *writeConn, rows any, raw bool) error {
	db, err := gdb.DB()
	if err != nil {
		return err
	}
	v := reflect.ValueOf(rows)
	if ins.postgres {
		prep, err := ins.prepared(ctx, db)
		if err != nil {
			return err
		}
		_, err = prep.ExecContext(ctx, ins.columnArrays(v)...)
		return err
	}
	return wc.with(ctx, db, func(conn *sql.Conn) error {
		return conn.Raw(func(dc any) error { return ins.sqliteInsert(ctx, dc, v, raw) })
	})
}

// writeConn is the one pooled connection a Store's SQLite inserts run on,
// taken at the first insert and kept. SQLite's page cache belongs to a
// connection, and a connection that finds the database written by another
// since its last transaction drops its cache: inserts on whichever pooled
// connection was free re-read every B-tree page they touched (root pages
// included) from the write-ahead log, about 5% of the gateway's CPU under
// load. On one connection the hot pages stay cached between batches.
type writeConn struct {
	mu   sync.Mutex
	conn *sql.Conn
	// closed is set by close: an insert in flight then gives the
	// connection back when it returns, and later ones take one each.
	closed atomic.Bool
}

// with runs fn on the kept connection, taking one first if there is none.
// A connection the driver or database/sql reports broken is let go, so the
// next insert takes a fresh one.
func (w *writeConn) with(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		w.conn = c
	}
	err := fn(w.conn)
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || w.closed.Load() {
		_ = w.conn.Close()
		w.conn = nil
	}
	return err
}

// close returns the kept connection to the pool. It does not wait for an
// insert in flight (one the writer gave up on at shutdown may be stuck in
// SQLite's busy wait): that insert gives the connection back as it returns.
func (w *writeConn) close() error {
	w.closed.Store(true)
	if !w.mu.TryLock() {
		return nil
	}
	defer w.mu.Unlock()
	if w.conn == nil {
		return nil
	}
	err := w.conn.Close()
	w.conn = nil
	return err
}

// sqlBufs holds the buffers SQLite statements are built in.
var sqlBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// sqliteStatement appends to b the INSERT of rows[from:to] with their values
// as literals.
func (ins *inserter) sqliteStatement(b []byte, rows reflect.Value, from, to int) []byte {
	b = append(b, ins.sqliteHead...)
	for r := from; r < to; r++ {
		if r > from {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		row := rows.Index(r)
		for c, f := range ins.fields {
			if c > 0 {
				b = append(b, ", "...)
			}
			b = appendLiteral(b, row.Field(f))
		}
		b = append(b, ')')
	}
	return append(b, onConflict...)
}

// sqliteTime is how the SQLite driver writes a time.Time it binds (its
// default format), so literal rows read back as bound ones did.
const sqliteTime = "2006-01-02 15:04:05.999999999-07:00"

// appendLiteral appends v as an SQLite literal: integers and booleans as
// integers, floats in exponent form (always REAL; NaN as NULL as the driver
// binds it, infinities as out-of-range exponents), strings quoted with
// quotes doubled, or as a hex blob cast to text when they hold a NUL (the
// driver hands SQL over as a C string), times as the driver formats them.
func appendLiteral(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return appendQuoted(b, v.String())
	case reflect.Int, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Bool:
		if v.Bool() {
			return append(b, '1')
		}
		return append(b, '0')
	case reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(b, "NULL"...)
		case math.IsInf(f, 1):
			return append(b, "1e999"...)
		case math.IsInf(f, -1):
			return append(b, "-1e999"...)
		}
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	t := v.Interface().(time.Time) // newInserter's column types
	b = append(b, '\'')
	b = t.AppendFormat(b, sqliteTime)
	return append(b, '\'')
}

// appendQuoted appends s as an SQLite text literal.
func appendQuoted(b []byte, s string) []byte {
	if strings.IndexByte(s, 0) >= 0 {
		b = append(b, "CAST(X'"...)
		b = hex.AppendEncode(b, []byte(s))
		return append(b, "' AS TEXT)"...)
	}
	b = append(b, '\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '\'')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '\'')
}

// columnArrays turns rows into one slice per column.
func (ins *inserter) columnArrays(rows reflect.Value) []any {
	n := rows.Len()
	out := make([]any, len(ins.cols))
	for c, f := range ins.fields {
		col := reflect.MakeSlice(reflect.SliceOf(ins.types[c]), n, n)
		for r := range n {
			col.Index(r).Set(rows.Index(r).Field(f))
		}
		out[c] = col.Interface()
	}
	return out
}
