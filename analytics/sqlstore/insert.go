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
// Store and reused: gorm built each 16-row statement again for every chunk,
// and the pure-Go SQLite driver's bind, quadratic in a statement's
// parameters, was a quarter of the gateway's CPU under load. On SQLite a
// batch is one transaction of 4-row executions (1-row ones for the rest); on
// Postgres it is one statement of one array per column (INSERT ... SELECT
// FROM unnest(...)), whatever its size. A row whose event id is already
// stored is ignored.
type inserter struct {
	table    string
	cols     []string
	fields   []int          // struct field index of each column
	types    []reflect.Type // Go type of each column
	postgres bool
	mu       sync.Mutex
	stmts    map[int]*sql.Stmt // by rows (0: Postgres's unnest)
}

// newInserter reads the columns of row's struct type from its gorm tags.
func newInserter(table string, row any, postgres bool) *inserter {
	ins := &inserter{table: table, postgres: postgres, stmts: map[int]*sql.Stmt{}}
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

// sqliteGroup is the rows of SQLite's multi-row statement. Its driver
// parses a statement at every execution (about as costly as a row's
// values) and binds in time quadratic in the parameters: a profile under
// load put 1 row a statement at 15% of CPU in the parser, 16 rows at 9% in
// bind plus 5% parsing; 4 rows sits between the two costs.
const sqliteGroup = 4

// statement is the INSERT of n rows (SQLite) or the unnest INSERT
// (Postgres, n unused), ignoring known event ids.
func (ins *inserter) statement(n int) (string, error) {
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
		row := "(" + strings.Repeat("?, ", len(ins.cols)-1) + "?)"
		b.WriteString("VALUES " + row + strings.Repeat(", "+row, n-1))
	}
	b.WriteString(" ON CONFLICT (event_id) DO NOTHING")
	return b.String(), nil
}

// prepared returns the statement of n rows, preparing it on first use (a
// failed prepare is retried by the next insert).
func (ins *inserter) prepared(ctx context.Context, db *sql.DB, n int) (*sql.Stmt, error) {
	ins.mu.Lock()
	defer ins.mu.Unlock()
	if st := ins.stmts[n]; st != nil {
		return st, nil
	}
	q, err := ins.statement(n)
	if err != nil {
		return nil, err
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %s insert: %w", ins.table, err)
	}
	ins.stmts[n] = st
	return st, nil
}

// insert writes rows (a slice of the row struct): on Postgres in one
// statement, on SQLite in one transaction of 4-row and 1-row executions.
func (ins *inserter) insert(ctx context.Context, gdb *gorm.DB, rows any) error {
	db, err := gdb.DB()
	if err != nil {
		return err
	}
	v := reflect.ValueOf(rows)
	if ins.postgres {
		prep, err := ins.prepared(ctx, db, 0)
		if err != nil {
			return err
		}
		_, err = prep.ExecContext(ctx, ins.columnArrays(v)...)
		return err
	}
	one, err := ins.prepared(ctx, db, 1)
	if err != nil {
		return err
	}
	group, err := ins.prepared(ctx, db, sqliteGroup)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stOne, stGroup := tx.StmtContext(ctx, one), tx.StmtContext(ctx, group)
	args := make([]any, 0, len(ins.cols)*sqliteGroup)
	for i, n := 0, v.Len(); i < n; {
		st, k := stGroup, sqliteGroup
		if n-i < sqliteGroup {
			st, k = stOne, 1
		}
		args = args[:0]
		for r := i; r < i+k; r++ {
			args = ins.appendArgs(args, v.Index(r))
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		i += k
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
