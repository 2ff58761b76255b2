-- Tenancy: organisations, users, memberships, invitations, console sessions,
-- rk_ keys, wrapped organisation data keys and sealed BYOK credentials.
-- Ids are text (UUIDv7 strings); times are timestamptz in UTC.

-- +goose Up
CREATE TABLE orgs (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    slug       text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT orgs_slug_key UNIQUE (slug)
);

CREATE TABLE users (
    id            text PRIMARY KEY,
    email         text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL,
    CONSTRAINT users_email_key UNIQUE (email)
);

CREATE TABLE memberships (
    org_id     text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE invitations (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email       text NOT NULL,
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    token_hash  text NOT NULL,
    invited_by  text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    CONSTRAINT invitations_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX invitations_org_idx ON invitations (org_id, created_at);

CREATE TABLE console_sessions (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id       text NOT NULL,
    refresh_hash text NOT NULL,
    created_at   timestamptz NOT NULL,
    refreshed_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);
CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);

CREATE TABLE api_keys (
    id                    text PRIMARY KEY,
    org_id                text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    created_by            text NOT NULL DEFAULT '',
    name                  text NOT NULL,
    prefix                text NOT NULL,
    key_hash              text NOT NULL,
    scopes                text NOT NULL,
    policy                text NOT NULL CHECK (policy IN ('explicit', 'route-all')),
    alpha                 double precision CHECK (alpha IS NULL OR (alpha >= 0 AND alpha <= 1)),
    rpm                   integer NOT NULL DEFAULT 0,
    tpm                   integer NOT NULL DEFAULT 0,
    daily_budget_micros   bigint NOT NULL DEFAULT 0,
    monthly_budget_micros bigint NOT NULL DEFAULT 0,
    expires_at            timestamptz,
    revoked_at            timestamptz,
    last_used_at          timestamptz,
    created_at            timestamptz NOT NULL,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at);

CREATE TABLE org_data_keys (
    org_id     text PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    wrapped    bytea NOT NULL,
    version    bigint NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE credentials (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    provider    text NOT NULL,
    label       text NOT NULL,
    base_url    text NOT NULL DEFAULT '',
    last_four   text NOT NULL,
    ciphertext  bytea NOT NULL,
    dek_version bigint NOT NULL,
    created_by  text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    rotated_at  timestamptz,
    CONSTRAINT credentials_org_provider_key UNIQUE (org_id, provider)
);

-- +goose Down
DROP TABLE credentials;
DROP TABLE org_data_keys;
DROP TABLE api_keys;
DROP TABLE console_sessions;
DROP TABLE invitations;
DROP TABLE memberships;
DROP TABLE users;
DROP TABLE orgs;
