-- Organisation routing settings and organisation-trained bundles (SPEC 6,
-- 10). org_routing holds one row per organisation (alpha NULL means the
-- default; allow_models and deny_models are JSON arrays of model ids;
-- bundle_id '' means the default bundle). org_bundles holds each trained
-- bundle's description and its encoded bytes (gzip of the bundle JSON). Every
-- query of the store is filtered by org_id.

-- +goose Up
CREATE TABLE org_routing (
    org_id       text PRIMARY KEY,
    alpha        double precision,
    allow_models text NOT NULL DEFAULT '[]',
    deny_models  text NOT NULL DEFAULT '[]',
    cache_bypass boolean NOT NULL DEFAULT false,
    bundle_id    text NOT NULL DEFAULT '',
    updated_at   timestamptz NOT NULL
);

CREATE TABLE org_bundles (
    id         text PRIMARY KEY,
    org_id     text NOT NULL,
    revision   text NOT NULL,
    models     text NOT NULL,
    k          integer NOT NULL,
    samples    integer NOT NULL,
    data_hash  text NOT NULL,
    created_at timestamptz NOT NULL,
    bundle     bytea NOT NULL
);
CREATE INDEX org_bundles_org_idx ON org_bundles (org_id, created_at);

-- +goose Down
DROP TABLE org_bundles;
DROP TABLE org_routing;
