// Package admission decides whether a data-plane turn may start and settles
// it afterwards: it is the gateway.Guard the gateway calls before and after
// every turn.
//
// Why a package of its own: admission composes two domains under a third's
// contract. Rate limits are tenancy's (tenancy.KeyLimiter,
// tenancy.EnforceKeyLimits); budgets and spend are billing's (billing.Budgets,
// billing.OrgBudgets); the interface and the caller are gateway's
// (gateway.Guard, gateway.Caller). billing cannot host it, because gateway
// imports billing and billing importing gateway would be a cycle; tenancy
// knows nothing of spend; gateway only declares what it needs. Here each
// domain stays ignorant of the others, and the composition root (app) only
// wires this package.
//
// Ring: domain. No I/O of its own: limiter and budget state are reached only
// through the services and interfaces above, implemented by adapters.
package admission
