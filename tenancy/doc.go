// Package tenancy is Heddle's tenancy domain: organisations, users, memberships
// and roles, invitations, console sessions (JWT), rk_ keys and their hot-path
// Authenticator, the BYOK vault (Tink envelope encryption), credential
// resolution for the data plane, and login/sign-up rate limiting.
//
// Ring: domain. The package root talks to storage only through the small
// interfaces in store.go (implemented by tenancy/sqlstore, faked in
// tenancy/tenancytest). It does no network I/O and reads no environment. Tink
// and the standard crypto packages are used here directly. The master keyset
// file (read, written atomically by rotation, created in dev mode) is the one
// local-file concern the package owns.
package tenancy
