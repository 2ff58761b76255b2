package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"

	"github.com/heddle-gw/heddle/migrations"
)

// Dialect is the app database's SQL dialect.
type Dialect = migrations.Dialect

// App database dialects.
const (
	DialectPostgres = migrations.Postgres
	DialectSQLite   = migrations.SQLite
)

// sqliteFile is the embedded default database's file name inside the data dir.
const sqliteFile = "heddle.db"

// OpenDatabase opens the app database: Postgres at url when url is set,
// else pure-Go SQLite at dataDir/heddle.db (created; directory 0700, files
// 0600 whatever the umask, see privateDatabaseFile; WAL,
// foreign keys on, immediate transactions so writers queue instead of
// failing). It pings before returning. SQL is logged only when slow or
// failing, without parameter values.
func OpenDatabase(ctx context.Context, url, dataDir string, logger *slog.Logger) (*gorm.DB, Dialect, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := &gorm.Config{
		Logger: gormlogger.NewSlogLogger(logger.With("component", "database"), gormlogger.Config{
			SlowThreshold: 500 * time.Millisecond, LogLevel: gormlogger.Warn,
			IgnoreRecordNotFoundError: true, ParameterizedQueries: true,
		}),
		SkipDefaultTransaction: true,
		// We ping below: one error line of our own instead of gorm's log
		// entry plus its error when the database is down.
		DisableAutomaticPing: true,
		NowFunc:              func() time.Time { return time.Now().UTC() },
	}
	var (
		dialector gorm.Dialector
		dialect   Dialect
	)
	if url == "" {
		path := filepath.Join(dataDir, sqliteFile)
		if err := privateDatabaseFile(dataDir, path); err != nil {
			return nil, "", err
		}
		dialector = sqlite.Open(path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)" +
			"&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)&_txlock=immediate")
		dialect = DialectSQLite
	} else {
		dialector = postgres.Open(url)
		dialect = DialectPostgres
	}
	db, err := gorm.Open(dialector, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("app: open %s database: %w", dialect, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, "", fmt.Errorf("app: open %s database: %w", dialect, err)
	}
	if dialect == DialectSQLite {
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
	} else {
		sqlDB.SetMaxOpenConns(32)
		sqlDB.SetMaxIdleConns(8)
		sqlDB.SetConnMaxLifetime(30 * time.Minute)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pctx); err != nil {
		sqlDB.Close()
		return nil, "", fmt.Errorf("app: reach %s database: %w", dialect, err)
	}
	return db, dialect, nil
}

// MigrateDatabase applies pending app-database migrations.
func MigrateDatabase(ctx context.Context, db *gorm.DB, dialect Dialect) error {
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("app: migrate: %w", err)
	}
	if _, err := migrations.Up(ctx, sqlDB, dialect, nil); err != nil {
		return fmt.Errorf("app: migrate: %w", err)
	}
	return nil
}

// privateDir creates dir if needed and sets it to 0700 whatever the umask or
// the mode it had: the data dir holds password and key hashes, sessions and
// the development secrets.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("app: data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("app: data dir: %w", err)
	}
	return nil
}

// privateDatabaseFile makes the SQLite database file exist with mode 0600
// before SQLite opens it, and tightens an older database's -wal and -shm
// files. SQLite creates its -wal, -shm and journal files with the mode of
// the database file, so they follow.
func privateDatabaseFile(dir, path string) error {
	if err := privateDir(dir); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("app: database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("app: database file: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("app: database file: %w", err)
		}
	}
	return nil
}
