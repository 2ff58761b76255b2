package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	chstore "github.com/heddle-gw/heddle/analytics/clickhouse"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/tenancy"
)

// migrateCommand applies the app database (and ClickHouse) migrations.
func migrateCommand(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel)
	db, dialect, err := OpenDatabase(ctx, cfg.DatabaseURL, cfg.DataDir, logger)
	if err != nil {
		return err
	}
	defer func() {
		if s, err := db.DB(); err == nil {
			_ = s.Close()
		}
	}()
	if err := MigrateDatabase(ctx, db, dialect); err != nil {
		return err
	}
	logger.InfoContext(ctx, "app database migrated", "dialect", string(dialect))
	if cfg.ClickHouseURL != "" {
		// Here ClickHouse must answer: serve connects in the background, a
		// migration cannot.
		s, err := chstore.Open(ctx, cfg.ClickHouseURL)
		if err != nil {
			return fmt.Errorf("app: clickhouse: %w", err)
		}
		_ = s.Close()
		logger.InfoContext(ctx, "clickhouse migrated")
	}
	return nil
}

// keysCommand issues an rk_ key for an organisation from the command line.
func keysCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: heddle keys create --org ORG [--name NAME] [--scopes inference,route]")
	}
	fs := subcommand("keys create", "--org ORG [flags]", stdout)
	org := fs.String("org", "", "organisation id or slug")
	name := fs.String("name", "cli", "key name")
	scopes := fs.String("scopes", "inference,route", "comma-separated scopes")
	policy := fs.String("policy", "explicit", "routing policy: explicit or route-all")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *org == "" {
		return errors.New("keys create: --org is required")
	}
	c, err := openTenancy(ctx, getenv, stderr)
	if err != nil {
		return err
	}
	defer c.closeStores()
	in := tenancy.KeyInput{Name: *name, Policy: tenancy.Policy(*policy)}
	for _, s := range strings.Split(*scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			in.Scopes = append(in.Scopes, tenancy.Scope(s))
		}
	}
	key, plaintext, err := c.createOrgKey(ctx, *org, in)
	if err != nil {
		return fmt.Errorf("keys create: %w", err)
	}
	fmt.Fprintf(stdout, "key %s (%s) created; it is shown only once:\n%s\n", key.ID, key.Prefix, plaintext)
	return nil
}

// createOrgKey issues a key for the organisation ref (id or slug), never
// for the platform organisation however it is named: its credentials are
// the platform's, so a key of its own would spend them unbilled.
func (c *components) createOrgKey(ctx context.Context, ref string, in tenancy.KeyInput) (*tenancy.Key, string, error) {
	if o, err := c.accounts.OrgByRef(ctx, ref); err == nil && o.ID == credits.PlatformOrgID {
		return nil, "", errors.New("the platform organisation holds platform credentials and has no keys")
	}
	return c.keys.CreateForOrg(ctx, ref, in)
}

// vaultCommand creates a master keyset file (init) or rotates the master
// keyset while servers keep serving.
func vaultCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 2 && args[0] == "init" && isHelp(args[1]) {
		fmt.Fprint(stdout, vaultHelp)
		return nil
	}
	if len(args) == 2 && args[0] == "init" {
		created, err := tenancy.EnsureDevKeyset(args[1])
		if err != nil {
			return fmt.Errorf("vault init: %w", err)
		}
		if created {
			fmt.Fprintf(stdout, "master keyset written to %s (mode 0600): keep it secret and backed up\n", args[1])
		} else {
			fmt.Fprintf(stdout, "%s already holds a master keyset: left as is\n", args[1])
		}
		return nil
	}
	if len(args) == 0 || args[0] != "rotate" {
		return errors.New("usage: heddle vault init FILE | heddle vault rotate [--reencrypt-org ORG]")
	}
	fs := subcommand("vault rotate", "[--reencrypt-org ORG]", stdout)
	org := fs.String("reencrypt-org", "", "also re-encrypt this organisation's credentials under a fresh data keyset")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c, err := openTenancy(ctx, getenv, stderr)
	if err != nil {
		return err
	}
	defer c.closeStores()
	if c.keysetPath == "" {
		return errors.New("vault rotate: needs HEDDLE_MASTER_KEYSET_FILE (an inline HEDDLE_MASTER_KEYSET cannot be rewritten)")
	}
	orgID := ""
	if *org != "" {
		o, err := c.accounts.OrgByRef(ctx, *org)
		if err != nil {
			return err
		}
		orgID = o.ID
	}
	rep, err := tenancy.RotateMasterKeyset(ctx, c.keysetPath, c.store, tenancy.RotateOptions{ReencryptOrgID: orgID, Logger: c.logger})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "master keyset rotated: new primary key %d (old keys %v kept for decryption); %d data keysets re-wrapped; %d credentials re-encrypted\n",
		rep.NewKeyID, rep.OldKeyIDs, rep.Rewrapped, rep.Reencrypted)
	if orgID != "" {
		// The old data keyset is gone, so is every prompt and response the
		// organisation opted to store under it (they answer 410 until they expire).
		fmt.Fprintf(stdout, "note: stored request content of organisation %s sealed under its previous data keyset can no longer be read\n", orgID)
	}
	return nil
}

// openTenancy wires only the app database and tenancy (for CLI commands).
func openTenancy(ctx context.Context, getenv func(string) string, stderr io.Writer) (*components, error) {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return nil, err
	}
	c := &components{cfg: cfg, logger: newLogger(stderr, cfg.LogLevel), metrics: newMetrics()}
	if c.catalog, err = loadCatalog(cfg); err != nil {
		return nil, err
	}
	if c.db, c.dialect, err = OpenDatabase(ctx, cfg.DatabaseURL, cfg.DataDir, c.logger); err != nil {
		return nil, err
	}
	if err = MigrateDatabase(ctx, c.db, c.dialect); err != nil {
		c.closeStores()
		return nil, err
	}
	if err = c.wireTenancy(); err != nil {
		c.closeStores()
		return nil, err
	}
	return c, nil
}
