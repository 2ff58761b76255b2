// Package tenantmodel keeps an organisation's own providers and models (SPEC
// 4): OpenAI-compatible endpoints a tenant adds (vLLM, Ollama, Together,
// Groq...) and the models it registers on them, with their own prices. The
// secret of a tenant provider is an ordinary BYOK credential whose provider
// is the tenant provider's name, kept by tenancy's vault; this package only
// stores the endpoint and model descriptions and hands each organisation its
// set (read through a short per-replica cache) to the gateway.
//
// It is a package of its own rather than part of tenancy because its data is
// catalog-shaped (prices, capabilities, bindings) and its consumers are the
// gateway and the console, while tenancy's store suite covers identity and
// secrets only.
//
// Ring: domain. No I/O of its own: storage only through ProviderStore and
// ModelStore (implemented in tenantmodel/sqlstore), secrets only through
// Credentials (tenancy.Credentials fits).
package tenantmodel
