package app

import (
	"context"
	"errors"
	"fmt"
	"github.com/heddle-gw/heddle/internal/fastupstream"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/analytics"
	anasql "github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/billing"
	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/idemredis"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/llm/responses"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/lexical"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/orgsql"
	"github.com/heddle-gw/heddle/routing/pinsql"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
	tensql "github.com/heddle-gw/heddle/tenancy/sqlstore"
	"github.com/heddle-gw/heddle/tenantmodel"
	"github.com/heddle-gw/heddle/web"
)

// components is the wired application: every store, service and adapter.
type components struct {
	cfg     Config
	logger  *slog.Logger
	db      *gorm.DB
	dialect Dialect
	catalog *catalog.Catalog
	codecs  gateway.Codecs

	tenantModels *tenantmodel.Service // organisations' own providers and models

	store      *tensql.Store
	vault      *tenancy.Vault
	keysetPath string
	auth       *tenancy.Authenticator
	resolver   *tenancy.CredentialResolver
	usable     *providerSet // which catalog providers an organisation has credentials for
	accounts   *tenancy.Accounts
	keys       *tenancy.Keys
	creds      *tenancy.Credentials
	members    *tenancy.Members
	sessions   *tenancy.Sessions
	limiter    *tenancy.LoginLimiter

	writer      *analytics.Writer
	reader      analytics.Reader
	chStore     *lazyClickHouse // nil: embedded analytics store
	sqlStore    *anasql.Store   // the embedded analytics store; nil with ClickHouse
	executor    *dispatch.Executor
	attemptSink *dispatch.SinkQueue
	dataPlane   *httpapi.Handler // set by newServer; shutdown interrupts its turns
	service     *gateway.Service
	metrics     *metrics
	hc          *http.Client
	redis       *redis.Client
	redisLink   *redisLink // nil: no HEDDLE_REDIS_URL
	orgRouting  *orgsql.Store
	orgRouters  *routing.OrgRouters
	// trainEmbedder is HEDDLE_EMBEDDER's embedder for training jobs (nil:
	// lexical-v1): organisation bundles train with what they route with.
	trainEmbedder routing.Embedder
	orgBudgets    *billing.OrgBudgets
	budgets       *billing.Budgets
	spend         *billing.SpendBuffer    // behind budgets
	rates         *admission.RateCounters // key rate limits (serveCommand runs their sync)
	providers     map[string]dispatch.Provider
	tracing       *tracing // nil: no OTLP endpoint, tracing off
	contents      *analytics.Contents
	credits       *credits.Service // hosted billing: operators, plans, prepaid credit
	training      *offline.Jobs    // bundle training jobs (run by serveCommand)
	adminAPI      *web.API
	console       *web.Console
}

// wire opens the stores and builds every component. On error, whatever was
// opened is closed.
func wire(ctx context.Context, cfg Config, logger *slog.Logger) (_ *components, err error) {
	c := &components{cfg: cfg, logger: logger, codecs: codecs(), metrics: newMetrics()}
	defer func() {
		if err != nil {
			c.closeStores()
		}
	}()
	if c.catalog, err = loadCatalog(cfg); err != nil {
		return nil, err
	}
	if _, err = c.catalog.Lookup(cfg.BaselineModel); err != nil {
		return nil, fmt.Errorf("HEDDLE_BASELINE_MODEL: %w", err)
	}
	if c.db, c.dialect, err = OpenDatabase(ctx, cfg.DatabaseURL, cfg.DataDir, logger); err != nil {
		return nil, err
	}
	if err = MigrateDatabase(ctx, c.db, c.dialect); err != nil {
		return nil, err
	}
	if err = c.wireTenancy(); err != nil {
		return nil, err
	}
	c.wireTenantModels()
	if err = c.wireAnalytics(ctx); err != nil {
		return nil, err
	}
	if err = c.openRedis(ctx); err != nil {
		return nil, err
	}
	c.hc = providerClient(cfg.AllowPrivate, cfg.UpstreamTransport)
	if c.tracing, err = newTracing(ctx, cfg, logger); err != nil {
		return nil, err
	}
	c.hc = c.tracing.upstream(c.hc)
	c.providers = providers(c.catalog, c.hc, cfg.AllowPrivate)
	c.attemptSink = dispatch.AsyncSink(gateway.AttemptSink{Recorder: c.metrics.recorder(c.writer, c.catalog)}, 8192)
	c.executor = dispatch.NewExecutor(dispatch.Config{
		MaxAttempts: cfg.MaxAttempts, FirstByteTimeout: cfg.FirstByteTimeout, StreamIdleTimeout: cfg.StreamIdleTimeout,
		OrgConcurrency: cfg.Capacity.OrgConcurrency, BindingConcurrency: cfg.Capacity.BindingConcurrency, CapWait: cfg.Capacity.CapWait,
	}, dispatch.Deps{
		Providers:   c.providers,
		ProviderFor: tenantProviderFor(c.hc, cfg.AllowPrivate),
		Credentials: credentialsAdapter{resolver: c.resolver, catalog: c.catalog},
		Codecs:      c.codecs,
		Sink:        c.tracing.sink(c.attemptSink),
		Pricer:      gateway.Pricer{Catalog: c.catalog}, // the request record's pricer too
		Idempotency: c.idempotency(),
		CapWait:     c.metrics.capWait,
		Logger:      logger.With("component", "dispatch"),
		// An organisation's own cap travels on dispatch.Meta, resolved with
		// the caller's limits (wire_capacity.go).
	})
	router, err := routing.DefaultRouter(routing.Config{EmbedTimeout: cfg.EmbedTimeout})
	if err != nil {
		return nil, fmt.Errorf("app: default router: %w", err)
	}
	c.orgRouting = orgsql.New(c.db, nil)
	orgCfg := routing.Config{EmbedTimeout: cfg.EmbedTimeout}
	if cfg.Embedder != "" && cfg.Embedder != lexical.ID {
		if orgCfg.Embedder, err = openEmbedderSpec(ctx, cfg.Embedder); err != nil {
			return nil, fmt.Errorf("app: HEDDLE_EMBEDDER: %w", err)
		}
	}
	if c.trainEmbedder, err = trainingEmbedder(ctx, cfg.Embedder, orgCfg.Embedder); err != nil {
		return nil, fmt.Errorf("app: HEDDLE_EMBEDDER: %w", err)
	}
	c.orgRouters = routing.NewOrgRouters(c.orgRouting, c.orgRouting, router, orgCfg)
	cache, err := c.wireCache(router.Embedder())
	if err != nil {
		return nil, err
	}
	// Spend is summed per replica, written and read back every
	// HEDDLE_SPEND_SYNC_INTERVAL (serveCommand runs the sync, closeStores
	// writes the rest): budget checks read only memory.
	c.spend = billing.NewSpendBuffer(billingsql.New(c.db), billing.SpendBufferConfig{StaleAfter: cfg.Capacity.SpendStaleAfter})
	c.budgets = billing.NewBudgets(c.spend, billing.BudgetsConfig{})
	c.orgBudgets = billing.NewOrgBudgets(billingsql.New(c.db), billing.OrgBudgetsConfig{})
	c.wireCredits()
	c.usable.plans = c.credits
	if err = c.grantFirstOperator(ctx); err != nil {
		return nil, err
	}
	c.rates = c.keyLimiter()
	c.metrics.watchRates(c.rates.Stats)
	c.contents = newContents(c)
	c.training = newTraining(c)
	guard, err := admission.New(admission.Deps{Limiter: c.rates, Budgets: c.budgets, OrgBudgets: c.orgBudgets, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("app: admission: %w", err)
	}
	c.service, err = gateway.New(gateway.Config{
		BaselineModel: cfg.BaselineModel, DefaultAlpha: cfg.DefaultAlpha, MaxAttempts: cfg.MaxAttempts,
	}, gateway.Deps{
		Catalog: c.catalog, Codecs: c.codecs, Executor: c.executor, Recorder: c.tracing.recorder(requestLog{
			next: c.metrics.recorder(c.writer, c.catalog), log: logger.With("component", "request"), out: lineOut(logger)}),
		Routers: c.tracing.routers(orgRouterSource{c.orgRouters}), Classify: httpapi.Classify,
		Logger: logger.With("component", "gateway"),
	},
		gateway.WithGuard(guard), gateway.WithCache(cache), gateway.WithPins(pinsql.New(c.db, nil), routing.HandoverConfig{}),
		gateway.WithContent(c.contents), gateway.WithTenantModels(tenantSource{c.tenantModels}),
		gateway.WithProviders(c.usable), gateway.WithCredits(creditFunding{Service: c.credits, usable: c.usable}))
	if err != nil {
		return nil, fmt.Errorf("app: gateway: %w", err)
	}
	if err = c.wireWeb(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *components) wireTenancy() error {
	src, path, err := masterKeysetSource(c.cfg, c.logger)
	if err != nil {
		return err
	}
	c.keysetPath = path
	c.store = tensql.New(c.db)
	if c.vault, err = tenancy.NewVault(src, c.store, tenancy.VaultConfig{Logger: c.logger.With("component", "vault")}); err != nil {
		return fmt.Errorf("app: vault: %w", err)
	}
	secret, err := sessionSecret(c.cfg, c.logger)
	if err != nil {
		return err
	}
	c.auth = tenancy.NewAuthenticator(c.store, tenancy.AuthConfig{Logger: c.logger.With("component", "auth")})
	c.resolver = tenancy.NewCredentialResolver(c.store, c.vault, tenancy.ResolverConfig{})
	c.accounts = tenancy.NewAccounts(c.store, tenancy.AccountsConfig{})
	c.keys = tenancy.NewKeys(c.store, tenancy.KeysConfig{Auth: c.auth})
	c.usable = newProviderSet(c.store, c.catalog, nil)
	c.creds = tenancy.NewCredentials(c.store, c.vault, tenancy.CredentialsConfig{
		Resolver: c.resolver, Changed: c.usable.Invalidate, AllowPrivateBaseURL: c.cfg.AllowPrivate,
		ProviderAllowed: func(name string) bool { _, err := c.catalog.Provider(name); return err == nil },
	})
	c.members = tenancy.NewMembers(c.store, tenancy.MembersConfig{Auth: c.auth})
	if c.sessions, err = tenancy.NewSessions(c.store, tenancy.SessionConfig{Secret: secret}); err != nil {
		return fmt.Errorf("app: sessions: %w", err)
	}
	c.limiter = tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
		PerIP:     tenancy.Rate{PerMinute: float64(c.cfg.LoginsPerMinute), Burst: min(10, c.cfg.LoginsPerMinute)},
		PerIPOrgs: tenancy.Rate{PerMinute: float64(c.cfg.OrgsPerHour) / 60, Burst: c.cfg.OrgsPerHour},
	})
	return nil
}

// clickHouseBatchRows is the analytics batch size on ClickHouse (the
// embedded store keeps the writer's 1,000: one SQLite transaction holds the
// database's write lock while it runs).
const clickHouseBatchRows = 10_000

func (c *components) wireAnalytics(ctx context.Context) error {
	var store analytics.Store
	wcfg := analytics.WriterConfig{SpillDir: c.cfg.SpillDir}
	if c.cfg.ClickHouseURL != "" {
		// ClickHouse makes a part of every insert and merges them in the
		// background: fewer, larger inserts cost it far less CPU.
		wcfg.BatchSize = clickHouseBatchRows
		// Connected in the background: Heddle serves (and spills) while
		// ClickHouse is down.
		s, err := newLazyClickHouse(c.cfg.ClickHouseURL, c.logger.With("component", "clickhouse"))
		if err != nil {
			return err
		}
		c.chStore, store, c.reader = s, s, s
	} else {
		s := anasql.New(c.db)
		c.sqlStore, store, c.reader = s, s, s
	}
	c.writer = analytics.NewWriter(store, wcfg, c.logger.With("component", "analytics"))
	c.metrics.watchWriter(c.writer.Stats)
	// The writer outlives the serve context: shutdown flushes it through
	// Close, whereas a cancelled Start context would spill the queue to disk.
	if err := c.writer.Start(context.WithoutCancel(ctx)); err != nil {
		if errors.Is(err, analytics.ErrSpillDirInUse) {
			return fmt.Errorf("%w; give each Heddle process its own HEDDLE_SPILL_DIR (default HEDDLE_DATA_DIR/spill)", err)
		}
		return err
	}
	if c.chStore != nil {
		c.chStore.start(c.writer.Retry)
	}
	return nil
}

// idempotency shares Idempotency-Key state through Redis when it is
// configured (N replicas), in process while Redis is down; nil lets
// dispatch keep it in process.
func (c *components) idempotency() dispatch.Idempotency {
	if c.redisLink == nil {
		return nil
	}
	return fallbackIdempotency{link: c.redisLink,
		remote: idemredis.New(c.redis, "heddle:idem:", idemredis.DefaultWindow, idemredis.WithLogger(c.logger.With("component", "idempotency"))),
		local:  dispatch.NewMemoryIdempotency(idemredis.DefaultWindow, nil, 0)}
}

// keyLimiter counts key rate limits per replica in memory, shared with the
// other replicas every HEDDLE_SPEND_SYNC_INTERVAL through Redis when it is
// configured and answers, else through the app database (rate_counters).
func (c *components) keyLimiter() *admission.RateCounters {
	db := billingsql.NewRateCounters(c.db)
	var store billing.SpendStore = db
	if c.redisLink != nil {
		store = fallbackCounters{link: c.redisLink, remote: ratelimitredis.New(c.redis, "heddle:"), local: db}
	}
	return admission.NewRateCounters(store, c.cfg.Capacity.SpendStaleAfter, nil)
}

// closeStores flushes the budget spend, the key rate-limit counts and key
// usage (first, each on its own deadline: a slow analytics store must not
// starve them), then traces, attempt rows and the analytics writer, and
// closes every store.
func (c *components) closeStores() {
	if c.spend != nil {
		sctx, cancel := context.WithTimeout(context.Background(), spendFlushTimeout)
		if err := c.spend.Close(sctx); err != nil {
			c.logger.Error("budget spend flush", "err", err)
		}
		cancel()
	}
	if c.rates != nil {
		rctx, cancel := context.WithTimeout(context.Background(), spendFlushTimeout)
		if err := c.rates.Close(rctx); err != nil {
			c.logger.Warn("rate limit counters flush", "err", err)
		}
		cancel()
	}
	if c.auth != nil {
		uctx, cancel := context.WithTimeout(context.Background(), spendFlushTimeout)
		if err := c.auth.FlushUsage(uctx); err != nil {
			c.logger.Warn("flush key usage", "err", err)
		}
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), storesCloseTimeout)
	defer cancel()
	if err := c.tracing.shutdown(ctx); err != nil {
		c.logger.Warn("trace shutdown", "err", err)
	}
	if c.attemptSink != nil {
		if err := c.attemptSink.Close(ctx); err != nil {
			c.logger.Warn("attempt sink close", "err", err)
		}
	}
	if c.writer != nil {
		if err := c.writer.Close(ctx); err != nil {
			c.logger.Error("analytics writer close", "err", err)
		}
	}
	if c.chStore != nil {
		_ = c.chStore.Close()
	}
	if c.sqlStore != nil { // after the writer's last insert, before the database
		_ = c.sqlStore.Close()
	}
	if c.redis != nil {
		_ = c.redis.Close()
	}
	if c.db != nil {
		if sqlDB, err := c.db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	}
}

func loadCatalog(cfg Config) (*catalog.Catalog, error) {
	cat, err := catalog.Default()
	if err != nil || cfg.CatalogFile == "" {
		return cat, err
	}
	data, err := os.ReadFile(cfg.CatalogFile)
	if err != nil {
		return nil, fmt.Errorf("HEDDLE_CATALOG_FILE: %w", err)
	}
	if cat, err = catalog.WithOverride(cat, data); err != nil {
		return nil, err
	}
	if err = checkCatalogURLs(cat, cfg.AllowPrivate); err != nil {
		return nil, fmt.Errorf("HEDDLE_CATALOG_FILE: %w", err)
	}
	return cat, nil
}

func codecs() gateway.Codecs {
	return gateway.Codecs{
		llm.FormatAnthropic: anthropic.New(),
		llm.FormatChat:      openaichat.New(),
		llm.FormatResponses: responses.New(),
		llm.FormatGemini:    gemini.New(),
	}
}

// upstreamIdlePerHost is how many idle connections to one upstream the
// client keeps: more than a burst of agent streams on one credential (500 in
// the load benchmark), so the next burst reuses them instead of dialing.
const upstreamIdlePerHost = 1024

// The values of HEDDLE_UPSTREAM_TRANSPORT.
const (
	transportNetHTTP  = "nethttp"
	transportFastHTTP = "fasthttp"
)

// upstreamClient is the one HTTP client every provider adapter shares. It
// has no overall timeout: dispatch bounds first byte and idle time itself.
// It does not ask for compressed responses: inflating every answer would
// cost the gateway CPU for bytes that cross a datacenter link. With
// transport fasthttp it speaks through fastupstream, which hands what it
// does not handle (a proxy, request trailers) to the net/http transport.
func upstreamClient(transport string) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * upstreamIdlePerHost
	t.MaxIdleConnsPerHost = upstreamIdlePerHost
	t.DisableCompression = true
	t.IdleConnTimeout = 90 * time.Second
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if transport == transportFastHTTP {
		return &http.Client{Transport: fastupstream.New(fastupstream.Config{
			MaxIdlePerHost: upstreamIdlePerHost, IdleTimeout: 90 * time.Second, DialTimeout: 10 * time.Second, Fallback: t,
		})}
	}
	return &http.Client{Transport: t}
}

// credentialsAdapter resolves dispatch credentials through the tenancy
// resolver, mapping a catalog provider to the credential it uses.
type credentialsAdapter struct {
	resolver *tenancy.CredentialResolver
	catalog  *catalog.Catalog
}

func (a credentialsAdapter) Resolve(ctx context.Context, orgID, provider string) (dispatch.Credential, error) {
	name := provider
	if p, err := a.catalog.Provider(provider); err == nil {
		name = p.CredentialName()
	}
	s, err := a.resolver.Resolve(ctx, orgID, name)
	if errors.Is(err, tenancy.ErrNotConfigured) && orgID != credits.PlatformOrgID {
		// BYOK wins; else a platform credential, only for a turn whose
		// credits stage reserved for this provider.
		if ps, perr := a.resolver.Resolve(ctx, credits.PlatformOrgID, name); perr == nil && gateway.UsePlatform(ctx, provider) {
			s, err = ps, nil
		}
	}
	if errors.Is(err, tenancy.ErrNotConfigured) {
		return dispatch.Credential{}, fmt.Errorf("%w: %s", dispatch.ErrNotConfigured, provider)
	}
	if err != nil {
		return dispatch.Credential{}, err
	}
	return dispatch.Credential{ID: s.ID, Secret: s.Value, BaseURL: s.BaseURL}, nil
}
