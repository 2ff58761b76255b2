-- Tenant-defined providers and models (SPEC 4). tenant_providers holds an
-- organisation's own OpenAI-compatible endpoints (the secret is a BYOK
-- credential whose provider is the endpoint's name); tenant_models holds the
-- models it registered on them, priced in USD per million tokens. Every query
-- of the store is filtered by org_id.

-- +goose Up
CREATE TABLE tenant_providers (
    org_id        text NOT NULL,
    name          text NOT NULL,
    base_url      text NOT NULL,
    format        text NOT NULL,
    credential_id text NOT NULL,
    created_by    text NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (org_id, name)
);

CREATE TABLE tenant_models (
    org_id            text NOT NULL,
    id                text NOT NULL,
    provider          text NOT NULL,
    upstream          text NOT NULL,
    format            text NOT NULL,
    context_window    integer NOT NULL,
    max_output        integer NOT NULL,
    tools             boolean NOT NULL,
    vision            boolean NOT NULL,
    price_input       double precision NOT NULL,
    price_output      double precision NOT NULL,
    price_cache_read  double precision NOT NULL,
    price_cache_write double precision NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, provider) REFERENCES tenant_providers (org_id, name)
);
CREATE INDEX tenant_models_provider_idx ON tenant_models (org_id, provider);

-- +goose Down
DROP TABLE tenant_models;
DROP TABLE tenant_providers;
