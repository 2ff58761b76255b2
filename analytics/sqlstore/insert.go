package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// inserter writes rows of one table through statements prepared once per
// Store and reused (database/sql re-prepares them per connection only
// once): gorm built and prepared each statement again for every chunk, and
// the pure-Go SQLite driver's bind, quadratic in a statement's parameters,
// was a quarter of the gateway's CPU under load. On SQLite every row is its
// own execution of a one-row statement (linear bind) in one transaction; on
// Postgres a whole batch is one statement of one array per column
// (INSERT ... SELECT FROM unnest(...)), whatever its size. A row whose
// event id is already stored is ignored.
type inserter struct {
	table    string
	cols     []string
	fields   []int          // struct field index of each column
	types    []reflect.Type // Go type of each column
	postgres bool
	mu       sync.Mutex
	stmt     *sql.Stmt
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

// statement is the one-row INSERT (SQLite) or the unnest INSERT
// (Postgres), ignoring known event ids.
func (ins *inserter) statement() (string, error) {
	var b strings.Builder
	b.WriteString("INSERT INTO " + ins.table + " (" + strings.Join(ins.cols, ", ") + ") ")
	if ins.postgres {
		b.WriteString("SELECT * FROM unnest(")
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
		b.WriteByte(')')
	} else {
		b.WriteString("VALUES (" + strings.Repeat("?, ", len(ins.cols)-1) + "?)")
	}
	b.WriteString(" ON CONFLICT (event_id) DO NOTHING")
	return b.String(), nil
}

// prepared returns the statement, preparing it on first use (a failed
// prepare is retried by the next insert).
func (ins *inserter) prepared(ctx context.Context, db *sql.DB) (*sql.Stmt, error) {
	ins.mu.Lock()
	defer ins.mu.Unlock()
	if ins.stmt != nil {
		return ins.stmt, nil
	}
	q, err := ins.statement()
	if err != nil {
		return nil, err
	}
	if ins.stmt, err = db.PrepareContext(ctx, q); err != nil {
		return nil, fmt.Errorf("prepare %s insert: %w", ins.table, err)
	}
	return ins.stmt, nil
}

// insert writes rows (a slice of the row struct) in one transaction.
func (ins *inserter) insert(ctx context.Context, gdb *gorm.DB, rows any) error {
	db, err := gdb.DB()
	if err != nil {
		return err
	}
	prep, err := ins.prepared(ctx, db)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(rows)
	if ins.postgres {
		_, err := prep.ExecContext(ctx, ins.columnArrays(v)...)
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	st := tx.StmtContext(ctx, prep)
	args := make([]any, 0, len(ins.cols))
	for i := range v.Len() {
		if _, err := st.ExecContext(ctx, ins.appendArgs(args[:0], v.Index(i))...); err != nil {
			return err
		}
	}
	return tx.Commit()
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

func (ins *inserter) appendArgs(args []any, row reflect.Value) []any {
	for _, f := range ins.fields {
		args = append(args, row.Field(f).Interface())
	}
	return args
}
