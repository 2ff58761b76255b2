package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/tenancy"
)

// serveCommand runs the gateway and console until ctx is cancelled, then
// shuts down gracefully: stop accepting, finish in-flight requests and
// streams up to HEDDLE_SHUTDOWN_TIMEOUT, flush the analytics writer.
func serveCommand(ctx context.Context, getenv func(string) string, environ []string, stderr io.Writer) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel)
	// Request lines are buffered (logging.go); the last ones are written
	// after everything else on the way out, a panic included.
	out := lineOut(logger)
	out.bufferRequests(requestLogBuffer, requestLogFlush)
	defer out.close()
	// The collector's target is set before anything allocates much; it is
	// reported on the "heddle serving" line, so a start that fails (a store
	// down) still prints one line.
	gogc := "environment"
	if defaultGC(getenv) {
		gogc = strconv.Itoa(gcPercent)
	}
	for _, u := range unknownVariables(environ) {
		if u.Nearest != "" {
			logger.WarnContext(ctx, "unknown environment variable "+u.Name+" is ignored; did you mean "+u.Nearest+"?", "name", u.Name, "nearest", u.Nearest)
		} else {
			logger.WarnContext(ctx, "unknown environment variable "+u.Name+" is ignored", "name", u.Name)
		}
	}
	c, err := wire(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer c.closeStores()
	if err := bootstrapAdmin(ctx, c, stderr); err != nil {
		return err
	}
	srv := newServer(c)
	if err := startDebug(ctx, cfg.DebugAddr, logger.With("component", "debug")); err != nil {
		return err
	}
	go c.auth.Run(ctx)
	trained := make(chan struct{}) // closed when the training queue stopped and marked its jobs
	go func() { c.training.Run(ctx); close(trained) }()
	go runContentJanitor(ctx, c.contents, cfg.ContentJanitorInterval, logger.With("component", "content"))
	go runReservationJanitor(ctx, c.credits, 5*time.Minute, logger.With("component", "credits"), c.metrics.staleSettled)
	// Spend keeps syncing through the drain; closeStores flushes the rest.
	spendCtx, stopSpend := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSpend()
	go c.spend.Run(spendCtx, cfg.Capacity.SpendSync, spendSyncTimeout, func(err error) {
		logger.Warn("budget spend sync (retried next time)", "err", err)
	})
	go c.rates.Run(spendCtx, cfg.Capacity.SpendSync, spendSyncTimeout, func(err error) {
		logger.Warn("rate limit counters sync (retried next time)", "err", err)
	})

	ln, err := listen(srv, cfg.Addr)
	if err != nil {
		return fmt.Errorf("app: listen %s: %w", cfg.Addr, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Listener(ln) }()
	logger.InfoContext(ctx, "heddle serving", "addr", cfg.Addr, "env", cfg.Env, "database", string(c.dialect),
		"analytics", analyticsKind(cfg), "catalog_version", c.catalog.Version, "gogc", gogc)
	select {
	case err := <-errc:
		return fmt.Errorf("app: listen %s: %w", cfg.Addr, err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	drain(srv, c.dataPlane, cfg.ShutdownTimeout, logger)
	// The last requests' spans are ended now: export them before the stores close.
	traceCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.tracing.shutdown(traceCtx); err != nil {
		logger.Warn("trace shutdown", "err", err)
	}
	<-trained
	return nil
}

// spendSyncTimeout bounds one write and read-back of the spend counters
// (HEDDLE_SPEND_SYNC_INTERVAL); one that runs out is retried next time.
const spendSyncTimeout = 5 * time.Second

func analyticsKind(cfg Config) string {
	if cfg.ClickHouseURL != "" {
		return "clickhouse"
	}
	return "embedded"
}

// newServer builds the fiber app with every surface mounted.
func newServer(c *components) *fiber.App {
	data := httpapi.New(httpapi.Deps{
		Service: c.service, Auth: c.tracing.auth(authAdapter{a: c.auth, plans: c.credits, budgets: c.orgBudgets, orgDefault: c.cfg.Capacity.OrgConcurrency}), Catalog: c.catalog, Logger: c.logger.With("component", "httpapi"),
		Ready:   c.readiness,
		Metrics: c.metrics.handler(),
		Observe: c.tracing.observe(c.metrics.observe),
		Begin:   c.tracing.begin(),
	})
	c.dataPlane = data
	app := fiber.New(serverConfig(c.cfg, edgeErrors(c.adminAPI, data.ErrorHandler)))
	// A panic in a handler becomes a 500 with an error id (logged), never a crash.
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(_ *fiber.Ctx, e any) {
		c.logger.Error("panic in handler", "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
	}}))
	if c.tracing != nil {
		app.Use(c.tracing.middleware)
	}
	data.Mount(app)
	mountConsole(app, c)
	return app
}

// bootstrapAdmin creates the first admin on an empty database and prints its
// login once.
func bootstrapAdmin(ctx context.Context, c *components, out io.Writer) error {
	if _, err := c.store.UserByEmail(ctx, strings.ToLower(c.cfg.AdminEmail)); err == nil {
		return nil // created on an earlier start
	}
	password := tenancy.GenerateKey()[3:27]
	_, org, err := c.accounts.Signup(ctx, tenancy.SignupInput{Email: c.cfg.AdminEmail, Password: password, OrgName: "Default"})
	if errors.Is(err, tenancy.ErrEmailTaken) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("app: first admin: %w", err)
	}
	fmt.Fprintf(out, "\n  First admin created (shown once): email %s  password %s  organisation %s\n  Console: http://%s/ (or POST /api/v1/login with that email and password)\n\n",
		c.cfg.AdminEmail, password, org.Slug, displayAddr(c.cfg.Addr))
	c.logger.InfoContext(ctx, "first admin created", "email", c.cfg.AdminEmail, "org", org.Slug)
	return nil
}

func displayAddr(addr string) string {
	if len(addr) > 0 && addr[0] == ':' {
		return "localhost" + addr
	}
	return addr
}

// serverConfig is the fiber configuration. Behind load balancers
// (HEDDLE_TRUSTED_PROXIES) the client's address, which login throttling and
// organisation limits key on, comes from the header they set
// (HEDDLE_PROXY_HEADER), and only from a connection of theirs; otherwise it
// is the connection's own address.
func serverConfig(cfg Config, errs fiber.ErrorHandler) fiber.Config {
	fc := fiber.Config{
		AppName:               "heddle",
		BodyLimit:             cfg.MaxBodyBytes,
		DisableStartupMessage: true,
		ReadTimeout:           2 * time.Minute,
		IdleTimeout:           2 * time.Minute,
		ErrorHandler:          errs,
		// A request header may be up to 64 KiB (agents send long
		// ones), but a connection holds that buffer only while it reads
		// a request: idle keep-alive connections and streams being
		// answered hold none, so a burst of 500 new streams does not
		// allocate 32 MiB of read buffers before its first bytes.
		ReadBufferSize:    64 << 10,
		ReduceMemoryUsage: true,
	}
	if len(cfg.TrustedProxies) > 0 {
		fc.ProxyHeader, fc.EnableTrustedProxyCheck, fc.TrustedProxies = cfg.ProxyHeader, true, cfg.TrustedProxies
		fc.EnableIPValidation = true
	}
	return fc
}
